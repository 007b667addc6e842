"""What everything else stands on: paths, private files, the settings, keys in the
keyring, themes, bounded readers, hosts and the servers' plumbing. Nothing here imports
the UI, the client or the sandbox (the import-linter contracts say so)."""
