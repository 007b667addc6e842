"""The areas of the app, one package each: spec, forms, list view, detail (imports one way).

Areas never import each other; what several need lives in `tui.views`.
"""
