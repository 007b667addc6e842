"""The shell around the areas: the main screen (rail, command mode, status bar), key help,
find, and the service's health watch."""
