"""Every clock job says what it would do between two times, so the clock's upcoming preview
(`tui/payscope/sandbox/upcoming.py`) asks the jobs rather than keeping copies of their queries."""

from __future__ import annotations

from payscope.sandbox.resource import nothing_due
from payscope.sandbox.resources import RESOURCES


def test_every_clock_job_says_what_is_due() -> None:
    jobs = [job for resource in RESOURCES for job in resource.jobs]
    assert jobs, "the sandbox has clock jobs"
    silent = [job.name for job in jobs if job.due_between is nothing_due]
    assert silent == [], f"jobs the upcoming preview would miss: {silent}"
