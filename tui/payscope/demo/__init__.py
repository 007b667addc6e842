"""`payscope demo`: a scripted story played in the real TUI, on a demo sandbox of its own.

`story` reads and checks a story file (no Textual); `player` plays one in the app.
"""
