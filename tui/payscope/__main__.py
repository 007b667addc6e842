from payscope.cli import main

raise SystemExit(main())
