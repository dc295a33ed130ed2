"""The PDF renderer's refusal to fetch anything."""

from __future__ import annotations

import pytest

from sigreport.render.pdf import FetchRefused, refuse_fetch, render_pdf


def test_pdf_fetches_nothing(tmp_path):
    with pytest.raises(FetchRefused):
        refuse_fetch("http://example.com/logo.png")
    html = ('<html><body><h1>x</h1><img src="http://example.com/a.png"><img src="file:///etc/hostname">'
            '<link rel="stylesheet" href="https://example.com/s.css"></body></html>')
    render_pdf(html, tmp_path / "r.pdf")
    assert (tmp_path / "r.pdf").read_bytes()[:5] == b"%PDF-"
