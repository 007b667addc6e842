"""Handing a URL to the world outside the terminal: open it in a browser, copy it.

Opening runs `webbrowser.open` in a thread (launching a browser can take a while and must not
freeze the screen), and only where a graphical browser can show up: with no display (an SSH
session, a container) `webbrowser` would start a console browser inside the terminal the app is
drawing in, so the user is told to copy the link instead. `$BROWSER` set by the user is taken
as their choice. Each outcome is said in a toast.

Served to a browser (`payscope serve`: Textual's web driver, `App.is_web`), the link opens in
the viewer's browser through `App.open_url` (textual-serve passes it to the page, which opens a
tab), never on the server machine; copying goes to the viewer's clipboard the same way every
copy does (`payscope.views.clipboard`: OSC 52, which the page's terminal hands to the browser's
clipboard, and tmux or the desktop's clipboard tool where there is one).
"""

from __future__ import annotations

import os
import sys
import webbrowser
from typing import Any

from payscope.views import clipboard


def graphical_browser_likely() -> bool:
    """Whether a browser window can open from here (macOS, Windows, an X or Wayland display,
    or a `$BROWSER` the user chose)."""
    if os.environ.get("BROWSER"):
        return True
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_in_browser(app: Any, url: str, what: str = "the link") -> None:
    """Open `url` in the user's browser (in a thread), with a toast saying what happened."""
    if app.is_web:  # served: the viewer's browser opens it, not the server machine's
        app.open_url(url, new_tab=True)
        app.notify(url, title=f"Opened {what} in a new tab of your browser", markup=False)
        return
    if not graphical_browser_likely():
        app.notify(
            f"No graphical browser here (no display): y copies {what} to open it elsewhere.",
            title="Not opened",
            severity="warning",
            markup=False,
        )
        return

    def launch() -> None:
        opened = webbrowser.open(url, new=2)
        if opened:
            app.call_from_thread(
                app.notify, url, title=f"Opened {what} in the browser", markup=False
            )
        else:
            app.call_from_thread(
                app.notify,
                f"No browser could be started: y copies {what}.",
                title="Not opened",
                severity="warning",
                markup=False,
            )

    app.run_worker(launch, thread=True, group="browser", description="Opening", exit_on_error=False)


def copy_text(app: Any, text: str, what: str = "the link") -> None:
    """Copy `text` to the clipboard (`payscope.views.clipboard`), saying where it went."""
    clipboard.copy_text(app, text, what)
