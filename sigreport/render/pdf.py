"""PDF from the report's own HTML with weasyprint; nothing is fetched from anywhere."""

from __future__ import annotations

from pathlib import Path


class FetchRefused(Exception):
    pass


def refuse_fetch(url: str, *args: object, **kwargs: object) -> dict:
    """url_fetcher that refuses every URL: the report is self-contained, so nothing may be loaded."""
    raise FetchRefused(f"sigreport reports fetch nothing (refused {url[:80]})")


def render_pdf(html: str, out: Path) -> None:
    import logging

    from weasyprint import HTML

    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    HTML(string=html, url_fetcher=refuse_fetch, base_url=None).write_pdf(str(out))
