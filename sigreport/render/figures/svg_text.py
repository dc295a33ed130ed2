"""A figure's SVG with its glyph outlines turned back into text, for the PDF.

Why: the report's SVG draws text as outlines (``svg.fonttype='path'``, see :mod:`.output`): one
``<use>`` of a glyph path per character. WeasyPrint parses and draws every one of them (a forest plot of
45 pairs has ~1,500), which made the figures most of the PDF's cost; as text (one ``<text>`` per
label) it draws them several times faster, and the words become searchable in the PDF.

Exact, not approximate: each label keeps the position of every glyph matplotlib laid out (kerning
included) as a per-character ``x`` list, in the same font (DejaVu Sans, the face and weight named by
the glyph ids), so nothing moves. A label is converted only when this can be verified: the group has
matplotlib's plain form (the label in a comment per line, one transform of translate, optional rotate
and scale, a colour or opacity if any, glyph ``<use>`` elements shifted along the baseline only), every
glyph is from one of matplotlib's own faces (DejaVu Sans, cmr10, STIX: a label in a paper font whose minus
sign comes from DejaVu Sans becomes one ``<text>`` per run of one face), and the glyphs are, in order, the
font's own glyphs of the label's
characters (its ``cmap``) or of a Latin ligature of them ("ff", "fi", ...: its letters are then set one
after the other at their advance widths). Anything else (mathtext, right-to-left or fallback-font
labels) keeps its outlines. Same input, same bytes.
"""

from __future__ import annotations

import functools
import html
import importlib.util
import re
from pathlib import Path

from sigreport.render.logs import quiet

# matplotlib's own faces by the PostScript name in its glyph ids -> (file, weight, style, family): DejaVu Sans,
# and the paper fonts of outputs.figure_style (Computer Modern as cmr10, Times-like STIX)
FACES = {
    "DejaVuSans": ("DejaVuSans.ttf", "normal", "normal", "DejaVu Sans"),
    "DejaVuSans-Bold": ("DejaVuSans-Bold.ttf", "bold", "normal", "DejaVu Sans"),
    "DejaVuSans-Oblique": ("DejaVuSans-Oblique.ttf", "normal", "oblique", "DejaVu Sans"),
    "DejaVuSans-BoldOblique": ("DejaVuSans-BoldOblique.ttf", "bold", "oblique", "DejaVu Sans"),
    "Cmr10": ("cmr10.ttf", "normal", "normal", "cmr10"),
    "STIXGeneral-Regular": ("STIXGeneral.ttf", "normal", "normal", "STIXGeneral"),
    "STIXGeneral-Bold": ("STIXGeneralBol.ttf", "bold", "normal", "STIXGeneral"),
}
# The family the labels ask for: matplotlib's own font files under a name of their own (the PDF's print
# page declares it with @font-face, see sigreport.render.pdf), then the installed font of that name.
FAMILY = "sigreport DejaVu Sans"
FAMILIES = f"'{FAMILY}', 'DejaVu Sans'"


def family_of(face: str) -> str:
    """The ``@font-face`` family name of ``face`` (a :data:`FACES` name): ``sigreport <family>``."""
    return f"sigreport {FACES[face][3]}"
# Latin ligatures by their letters (longest first) and their compatibility code point in the font's cmap
LIGATURES = (("ffi", "\ufb03"), ("ffl", "\ufb04"), ("ff", "\ufb00"), ("fi", "\ufb01"), ("fl", "\ufb02"))
FONT_SCALE = 100.0  # matplotlib's TextToPath.FONT_SCALE: glyph units per font-size unit

_NUM = r"-?\d+(?:\.\d+)?(?:e-?\d+)?"
_BY_STYLE = {(f"sigreport {family}", weight, style): face for face, (_, weight, style, family) in FACES.items()}
_TEXT = re.compile(r'<text [^>]*font-family="[^"]*"[^>]*>')
# One label as matplotlib writes it: <g id="..."> then per line of text <!-- line --> <g transform="...">
# [<defs>...</defs>] <use/>... </g>, then </g>. _LINE reads one line; _GROUP finds a whole label.
_LINE_FORM = (r'<!-- (?P<text>[^\n]*?) -->\s*'
              r'<g (?:style="(?P<style>[^"]*)" )?'
              rf'transform="translate\((?P<tx>{_NUM}) (?P<ty>{_NUM})\)(?: rotate\((?P<rot>{_NUM})\))? '
              rf'scale\((?P<s>{_NUM}) (?P<sy>{_NUM})\)">\s*'
              r'(?P<defs><defs>\s*(?:<path [^>]*/>\s*)*</defs>\s*)?'
              r'(?P<uses>(?:<use [^>]*/>\s*)+)</g>')
_LINE = re.compile(_LINE_FORM)
# the text's colour and opacity, as matplotlib writes them on a label's group (black and opaque: none)
_STYLE = re.compile(r"(?:fill: #[0-9a-f]{6}|opacity: [\d.]+)(?:; (?:fill: #[0-9a-f]{6}|opacity: [\d.]+))*")
_GROUP = re.compile(r'(?P<indent>[ \t]*)<g id="(?P<id>[^"]*)">\s*(?P<lines>(?:'
                    + re.sub(r"\(\?P<\w+>", "(?:", _LINE_FORM) + r'\s*)+)</g>')
_USE = re.compile(rf'<use xlink:href="#(?P<ref>[^"]*)"(?: transform="translate\((?P<x>{_NUM}) 0\)")?/>')
_PATH = re.compile(r'<path id="(?P<id>[^"]*)"[^>]*/>')


def glyphs_to_text(svg: str) -> str:
    """``svg`` (a figure as :func:`.output.inline_svg` writes it) with every
    label that can be verified drawn as ``<text>`` (see the module docstring); glyph definitions no
    remaining ``<use>`` refers to are dropped, the rest is unchanged."""
    defs: list[str] = []

    def convert(m: re.Match[str]) -> str:
        lines = list(_LINE.finditer(m.group("lines")))
        texts = [line_text(line) for line in lines]
        if any(t is None for t in texts):
            return m.group(0)
        # glyphs first defined here may serve a label left as outlines
        defs.extend(line.group("defs").strip() for line in lines if line.group("defs"))
        return f'{m.group("indent")}<g id="{m.group("id")}">{"".join(t for t in texts if t)}</g>\n'

    out = _GROUP.sub(convert, svg)
    if defs:
        used = set(re.findall(r'href="#([^"]*)"', out))
        kept = [p.group(0) for d in defs for p in _PATH.finditer(d) if p.group("id") in used]
        if kept:
            out = re.sub(r"(<svg\b[^>]*>)", lambda r: r.group(1) + "\n <defs>\n  " + "\n  ".join(kept)
                         + "\n </defs>", out, count=1)
    return out


def line_text(m: re.Match[str]) -> str | None:
    """The ``<text>`` elements for one line of a label (an :data:`_LINE` match): one per run of characters
    drawn from one face (a paper font with DejaVu Sans filling in a glyph it lacks, such as a minus sign,
    gives several), or None when the line cannot be verified."""
    chars = html.unescape(m.group("text"))
    uses = list(_USE.finditer(m.group("uses")))
    plain = not _USE.sub("", m.group("uses")).strip() and float(m.group("sy")) == -float(m.group("s"))
    style = m.group("style")
    if not plain or (style is not None and not _STYLE.fullmatch(style)):
        return None
    xs: list[float] = []  # one per character, in glyph units
    char_faces: list[str] = []
    for use in uses:
        name, _, gid = use.group("ref").rpartition("-")  # <figure prefix>-<face>-<glyph index, hex>
        face = face_of(name)
        if face is None or not re.fullmatch(r"[0-9a-f]+", gid):
            return None
        drawn = characters(face, int(gid, 16), chars[len(xs):])
        if drawn is None:
            return None
        x = float(use.group("x") or 0.0)
        for ch in drawn:  # a ligature's letters one after the other, each at its own advance
            xs.append(x)
            char_faces.append(face)
            x += advance(face, ch)
    if not xs or len(xs) != len(chars):
        return None
    scale = float(m.group("s"))
    transform = f"translate({m.group('tx')} {m.group('ty')})"
    if m.group("rot") is not None and float(m.group("rot")) != 0:
        transform += f" rotate({m.group('rot')})"
    out, start = [], 0
    for i in range(1, len(chars) + 1):
        if i == len(chars) or char_faces[i] != char_faces[start]:
            out.append(_text(chars[start:i], xs[start:i], char_faces[start], scale, transform, style))
            start = i
    return "".join(out)


def _text(chars: str, xs: list[float], face: str, scale: float, transform: str, style: str | None) -> str:
    """One ``<text>`` of ``chars`` in ``face``, each character at its x (glyph units)."""
    _, weight, font_style, family = FACES[face]
    positions = " ".join(_short(x * scale) for x in xs)
    attrs = (f'font-family="\'{family_of(face)}\', \'{family}\'" font-size="{_short(scale * FONT_SCALE)}"'
             + (f' font-weight="{weight}"' if weight != "normal" else "")
             + (f' font-style="{font_style}"' if font_style != "normal" else "")
             + (f' style="{style}"' if style else ""))
    # xml:space="preserve": one x per character, so runs of spaces must not collapse
    return (f'<text xml:space="preserve" transform="{transform}" x="{positions}" y="0" {attrs}>'
            f"{html.escape(chars, quote=False)}</text>")


def faces(svg: str) -> set[str]:
    """The :data:`FACES` the ``<text>`` labels of ``svg`` (:func:`glyphs_to_text`'s output) are set in."""
    out = set()
    for tag in _TEXT.findall(svg):
        family = re.search(r'font-family="([^",]*)', tag)
        weight = re.search(r'font-weight="(\w+)"', tag)
        style = re.search(r'font-style="(\w+)"', tag)
        key = (family.group(1).strip("'") if family else FAMILY, weight.group(1) if weight else "normal",
               style.group(1) if style else "normal")
        if key in _BY_STYLE:
            out.add(_BY_STYLE[key])
    return out


def font_path(face: str) -> Path:
    """matplotlib's own file of ``face`` (a :data:`FACES` name): the outlines in its SVG came from it."""
    spec = importlib.util.find_spec("matplotlib")
    assert spec is not None and spec.submodule_search_locations
    return Path(spec.submodule_search_locations[0]) / "mpl-data" / "fonts" / "ttf" / FACES[face][0]


def face_of(name: str) -> str | None:
    """The :data:`FACES` name a glyph id's font part (``<figure prefix>-DejaVuSans-Bold``) ends with."""
    for face in sorted(FACES, key=len, reverse=True):
        if name == face or name.endswith("-" + face):
            return face
    return None


def _short(x: float) -> str:
    """A coordinate as matplotlib's SVG writes them: fixed point, at most 6 decimals, no trailing zeros."""
    s = f"{x:.6f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def characters(face: str, glyph: int, rest: str) -> str | None:
    """The characters at the start of ``rest`` that ``glyph`` of ``face`` draws: the first one when it is
    that character's own glyph, the letters of a Latin ligature ("ff", "fi", "fl", "ffi", "ffl", which
    matplotlib's text shaping uses) when it is the ligature's, else None."""
    if rest and glyph_index(face, rest[0]) == glyph:
        return rest[0]
    for letters, ligature in LIGATURES:
        if rest.startswith(letters) and glyph_index(face, ligature) == glyph:
            return letters
    return None


def advance(face: str, ch: str) -> float:
    """How far ``face`` moves on after ``ch``, in matplotlib's glyph units (:data:`FONT_SCALE` per em)."""
    cmap, _, widths, per_em = _font_tables(face)
    return widths[cmap[ord(ch)]] / per_em * FONT_SCALE


def glyph_index(face: str, ch: str) -> int | None:
    """The index of the glyph ``face`` (a :data:`FACES` name) draws for ``ch``, from its ``cmap``."""
    cmap, order, _, _ = _font_tables(face)
    name = cmap.get(ord(ch))
    return order.get(name) if name is not None else None


@functools.lru_cache(maxsize=len(FACES))
def _font_tables(face: str) -> tuple[dict[int, str], dict[str, int], dict[str, int], int]:
    """(``cmap``: code point -> glyph name, glyph name -> index, glyph name -> advance width, units per em)
    of matplotlib's own copy of the face (the file its outlines came from)."""
    from fontTools.ttLib import TTFont

    with quiet("fontTools"):  # "'created' timestamp seems very low": DejaVu's stamps are Unix times
        font = TTFont(font_path(face), lazy=True)
        widths = {name: metrics[0] for name, metrics in font["hmtx"].metrics.items()}
        return (font.getBestCmap(), {n: i for i, n in enumerate(font.getGlyphOrder())}, widths,
                font["head"].unitsPerEm)
