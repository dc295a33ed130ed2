"""PDF from the report's own HTML with weasyprint; nothing is fetched from anywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class FetchRefused(Exception):
    pass


def refuse_fetch(url: str, *args: object, **kwargs: object) -> dict:
    """url_fetcher that refuses every URL: the report is self-contained, so nothing may be loaded."""
    raise FetchRefused(f"sigreport reports fetch nothing (refused {url[:80]})")


def _fetcher() -> Any:
    """weasyprint >= 70 takes a URLFetcher object; older versions a function. Both refuse everything."""
    try:
        from weasyprint.urls import URLFetcher
    except ImportError:  # pragma: no cover - older weasyprint
        return refuse_fetch

    class RefusingFetcher(URLFetcher):
        def fetch(self, url: str, headers: object = None) -> Any:
            refuse_fetch(url)

        def __call__(self, url: str, *args: object, **kwargs: object) -> Any:
            refuse_fetch(url)

    return RefusingFetcher()


def render_pdf(html: str, out: Path) -> None:
    import logging

    from weasyprint import HTML

    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    HTML(string=html, url_fetcher=_fetcher(), base_url=None).write_pdf(str(out))
