"""Cells into HTML or LaTeX: the only code in sigreport that knows either syntax.

Every cell of the report model (:mod:`sigreport.render.model`) and every plain string of a report
is escaped exactly once, here: :func:`html` returns :class:`markupsafe.Markup` (so Jinja's autoescape
leaves it alone), :func:`latex` returns :class:`Safe` (which the LaTeX environment's ``finalize``
leaves alone). Notation (:class:`~sigreport.render.model.Sym`) becomes Unicode and ``<sub>`` in HTML
and math mode in LaTeX.

Characters that pdflatex cannot print with its default input encoding (UTF-8 with the OT1, OMS and
TS1 font encodings of a plain ``article``: CJK, emoji, Cyrillic, ...) would stop a paper from
compiling. LaTeX output writes each of them as a visible ``[U+XXXX]`` placeholder and records it, so
the build can warn once; HTML shows every character as it is.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable

from markupsafe import Markup, escape as html_escape

import re

from sigreport.render.model import (CI, Cell, Count, Decision, Df, Int, Join, Lines, Marked, Num, P, Pair, Stat, Sym,
                                    Text, Versus)


class Safe(str):
    """A LaTeX string already valid for its target; the LaTeX environment does not escape it."""

    __slots__ = ()


DASH = {"html": "\u2014", "latex": "---"}
UP, DOWN = "\u25b2", "\u25bc"  # the row system of a pairwise matrix is better / worse

# name: (HTML, LaTeX math without the dollars). The HTML is trusted markup.
SYMBOLS: dict[str, tuple[str, str]] = {
    "t": ("t", "t"), "T": ("T", "T"), "F": ("F", "F"), "z": ("z", "z"),
    "Delta": ("\u0394", r"\Delta"), "mean_diff": ("mean<wbr>(a\u2212b)", r"\bar{d}"),
    "delta_ab": ("\u0394\u00a0=\u00a0a\u2212b", r"\Delta = a-b"), "p_adj": ("p<sub>adj</sub>", r"p_{\text{adj}}"),
    "R_plus": ("R<sup>+</sup>", "R^+"), "R_minus": ("R<sup>\u2212</sup>", "R^-"),
    "df_1": ("df<sub>1</sub>", "df_1"), "df_2": ("df<sub>2</sub>", "df_2"),
    "epsilon": ("\u03b5", r"\varepsilon"), "chi2": ("\u03c7<sup>2</sup>", r"\chi^2"),
    "epsilon_GG": ("\u03b5<sub>GG</sub>", r"\varepsilon_{GG}"),
    "epsilon_HF": ("\u03b5<sub>HF</sub>", r"\varepsilon_{HF}"),
    "epsilon_LB": ("\u03b5<sub>LB</sub>", r"\varepsilon_{LB}"),
    "d_z": ("d<sub>z</sub>", "d_z"), "rank_biserial": ("r<sub>rb</sub>", "r_{rb}"),
    "g_z": ("g<sub>z</sub>", "g_z"), "d_av": ("d<sub>av</sub>", "d_{av}"), "g_av": ("g<sub>av</sub>", "g_{av}"),
    "generalized_eta_squared": ("\u03b7<sup>2</sup><sub>G</sub>", r"\eta^2_G"),
    "partial_eta_squared": ("\u03b7<sup>2</sup><sub>p</sub>", r"\eta^2_p"),
    "n_11": ("n<sub>11</sub>", "n_{11}"), "n_10": ("n<sub>10</sub>", "n_{10}"),
    "n_01": ("n<sub>01</sub>", "n_{01}"), "n_00": ("n<sub>00</sub>", "n_{00}"),
    "kappa": ("\u03ba", r"\kappa"), "kappa_w": ("\u03ba<sub>w</sub>", r"\kappa_w"), "alpha": ("\u03b1", r"\alpha"),
    "D_o": ("D<sub>o</sub>", "D_o"), "D_e": ("D<sub>e</sub>", "D_e"), "P_A": ("P(A)", "P(A)"),
    "P_E": ("P(E)", "P(E)"), "SE_0": ("SE<sub>0</sub>", r"SE_0"),
    "minus_infinity": ("\u2212\u221e", r"-\infty"), "infinity": ("\u221e", r"\infty"),
    "p": ("p", "p"), "n": ("n", "n"), "N": ("N", "N"), "W": ("W", "W"), "B": ("B", "B"), "Q": ("Q", "Q"),
    "chi2_F": ("\u03c7<sup>2</sup><sub>F</sub>", r"\chi^2_F"), "F_F": ("F<sub>F</sub>", "F_F"),
    "q_alpha": ("q<sub>\u03b1</sub>", r"q_\alpha"), "R_a": ("R<sub>a</sub>", "R_a"), "R_b": ("R<sub>b</sub>", "R_b"),
    "R_i": ("R<sub>i</sub>", "R_i"), "C_j": ("C<sub>j</sub>", "C_j"), "SD_av": ("SD<sub>av</sub>", r"\mathit{SD}_{av}"),
    "proportion_of_wins": ("proportion of wins", r"\text{proportion of wins}"),
    "mean": ("mean", r"\text{mean}"), "SD": ("SD", r"\mathit{SD}"), "SE": ("SE", r"\mathit{SE}"),
}

# Notation written in captions and notes (plain strings) as it would be typed: each token, as a whole word,
# is set in math mode in LaTeX (its symbol's LaTeX). A system or corpus name that happens to equal one of
# these tokens would be set in math too, which prints it legibly; nothing else in prose is touched.
PROSE_NOTATION: dict[str, str] = {
    "p_adj": "p_adj", "\u03c7\u00b2_F": "chi2_F", "F_F": "F_F", "d_z": "d_z", "g_z": "g_z", "d_av": "d_av",
    "g_av": "g_av", "SD_av": "SD_av", "R_a": "R_a", "R_b": "R_b", "R_i": "R_i", "C_j": "C_j", "q_\u03b1": "q_alpha",
    "\u03b5_GG": "epsilon_GG", "\u03b5_HF": "epsilon_HF", "\u03b5_LB": "epsilon_LB", "\u03b7\u00b2_G":
    "generalized_eta_squared", "\u03b7\u00b2_p": "partial_eta_squared", "n_11": "n_11", "n_10": "n_10",
    "n_01": "n_01", "n_00": "n_00", "D_o": "D_o", "D_e": "D_e", "SE_0": "SE_0", "\u03c7\u00b2": "chi2",
}
_PROSE_TOKENS = "|".join(re.escape(k) for k in sorted(PROSE_NOTATION, key=len, reverse=True))
_SPEC_KEY = r"(?:tests|outputs|classification|agreement|data|metrics)\.[a-z0-9_.]*[a-z0-9_]"  # e.g. tests.mauchly_p
_PROSE_RE = re.compile(f"(?<![A-Za-z0-9_])({_PROSE_TOKENS}|{_SPEC_KEY})(?![A-Za-z0-9_])")

_SPECIALS = {
    "\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    # OT1 prints | as a dash. A sacrebleu signature may break after each field, with a little stretch there: a line
    # of fields has almost no spaces to justify with (a bare \allowbreak left 13-16 pt overfull lines in lncs, neurips)
    "|": r"\textbar\hspace{0pt plus 2pt}",
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "<": r"\textless{}", ">": r"\textgreater{}", "\u00a0": "~", "\u2212": "$-$", "\u2014": "---", "\u03b1": r"$\alpha$",
    "\u0394": r"$\Delta$", "\u221e": r"$\infty$", "\u00d7": r"$\times$", "\u2713": r"$\checkmark$",
    "\u2265": r"$\geq$", "\u2264": r"$\leq$", "\u03b5": r"$\varepsilon$", "\u03c7": r"$\chi$",
    "\u03b7": r"$\eta$", "\u03bd": r"$\nu$", "\u2026": r"\dots{}", "\u221a": r"$\surd$", "\u00b2": r"\textsuperscript{2}",
    "\u00b3": r"\textsuperscript{3}", "\u2022": r"\textbullet{}", "\u2248": r"$\approx$", "\u00b1": r"$\pm$",
    "\u00b7": r"$\cdot$", "\u2192": r"$\rightarrow$", "\u2193": r"$\downarrow$", "\u2191": r"$\uparrow$",
    "\u03ba": r"$\kappa$",
    "\u03c1": r"$\rho$", "\u03a3": r"$\Sigma$",
    "\u03c3": r"$\sigma$", "\u03bc": r"$\mu$", "\u03b2": r"$\beta$", "\u03c4": r"$\tau$",
    "\u2260": r"$\neq$", "\u2032": r"$'$", "\u2013": "--", "\u201c": "``", "\u201d": "''",
}

# Non-ASCII characters pdflatex prints in a plain article (TeX Live 2022, default utf8 input, OT1 text
# font): every character declared in utf8enc.dfu, ot1enc.dfu, omsenc.dfu and ts1enc.dfu, each compiled
# on its own line and kept when pdflatex reported no error (tests/render/test_render_model.py recompiles them).
PRINTABLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00A0, 0x00AA), (0x00AC, 0x00BA), (0x00BC, 0x00CF), (0x00D1, 0x00DD), (0x00DF, 0x00EF), (0x00F1, 0x00FD),
    (0x00FF, 0x0103), (0x0106, 0x010F), (0x0112, 0x0117), (0x011A, 0x0125), (0x0128, 0x012D), (0x0130, 0x0137),
    (0x0139, 0x013E), (0x0141, 0x0148), (0x014C, 0x0165), (0x0168, 0x0171), (0x0174, 0x017E), (0x0192, 0x0192),
    (0x01C4, 0x01D4), (0x01E2, 0x01E3), (0x01E6, 0x01E9), (0x01F0, 0x01F0), (0x01F4, 0x01F5), (0x0218, 0x021B),
    (0x0232, 0x0233), (0x0237, 0x0237), (0x02C6, 0x02C7), (0x02D8, 0x02D9), (0x02DC, 0x02DD), (0x0E3F, 0x0E3F),
    (0x1E02, 0x1E03), (0x1E0D, 0x1E0D), (0x1E1E, 0x1E21), (0x1E25, 0x1E25), (0x1E30, 0x1E31), (0x1E37, 0x1E37),
    (0x1E43, 0x1E43), (0x1E45, 0x1E45), (0x1E47, 0x1E47), (0x1E5B, 0x1E5B), (0x1E63, 0x1E63), (0x1E6D, 0x1E6D),
    (0x1E8E, 0x1E91), (0x1E9E, 0x1E9E), (0x1EF2, 0x1EF3), (0x200C, 0x200C), (0x2010, 0x2016), (0x2018, 0x2019),
    (0x201C, 0x201D), (0x2020, 0x2022), (0x2026, 0x2026), (0x2030, 0x2031), (0x203B, 0x203B), (0x203D, 0x203D),
    (0x2044, 0x2044), (0x204E, 0x204E), (0x2052, 0x2052), (0x20A1, 0x20A1), (0x20A4, 0x20A4), (0x20A6, 0x20A6),
    (0x20A9, 0x20A9), (0x20AB, 0x20AC), (0x20B1, 0x20B1), (0x2103, 0x2103), (0x2116, 0x2117), (0x211E, 0x211E),
    (0x2120, 0x2120), (0x2122, 0x2122), (0x2126, 0x2127), (0x212E, 0x212E), (0x2190, 0x2193), (0x2329, 0x232A),
    (0x2422, 0x2423), (0x25E6, 0x25E6), (0x25EF, 0x25EF), (0x266A, 0x266A), (0x27E8, 0x27E9), (0x3008, 0x3009),
    (0xFB00, 0xFB06), (0xFEFF, 0xFEFF),
)
_RANGE_STARTS = [lo for lo, _ in PRINTABLE_RANGES]


def latex_printable(ch: str) -> bool:
    """Whether pdflatex prints ``ch`` as text (after the specials above are mapped)."""
    c = ord(ch)
    if 0x20 <= c < 0x7F or ch in "\n\t" or ch in _SPECIALS:
        return True
    i = bisect.bisect_right(_RANGE_STARTS, c) - 1
    return i >= 0 and PRINTABLE_RANGES[i][0] <= c <= PRINTABLE_RANGES[i][1]


def placeholder(ch: str) -> str:
    return f"[U+{ord(ch):04X}]"


# ASCII characters escape() changes: the specials and the control characters (placeholders) but tab and newline
_ASCII_CHANGED = re.compile(r"[\\~^&%$#_{}<>|/\x00-\x08\x0b-\x1f\x7f]")


_SLASH_BREAK = r"/\hspace{0pt plus 2pt}"


def _slash(s: str, k: int) -> str:
    """The slash at ``s[k]``: within a word (a model's organisation/name: mockllm/large, meta-llama/Llama-3-70B) a
    line may break after it, with the little stretch the sacrebleu signature's bars have, or a list of such names
    runs past the column (9.8 pt in lncs); between spaces it is a plain slash."""
    inside = 0 < k < len(s) - 1 and not s[k - 1].isspace() and not s[k + 1].isspace()
    return _SLASH_BREAK if inside else "/"


def escape(value: object, unprintable: set[str] | None = None) -> str:
    """Escape text for LaTeX; :class:`Safe` strings pass unchanged.

    Characters pdflatex cannot print become ``[U+XXXX]`` and are added to ``unprintable``. Most text of a
    report (names, numbers, words) is ASCII without a special: it is returned as it is, in one C-level scan.
    """
    if isinstance(value, Safe):
        return str(value)
    s = "" if value is None else str(value)
    if s.isascii() and _ASCII_CHANGED.search(s) is None:
        return s
    out = []
    for k, ch in enumerate(s):
        if ch == "/":
            out.append(_slash(s, k))
        elif ch in _SPECIALS:
            out.append(_SPECIALS[ch])
        elif latex_printable(ch):
            out.append(ch)
        else:
            if unprintable is not None:
                unprintable.add(ch)
            out.append(placeholder(ch))
    return "".join(out)


# -------------------------------------------------------------------------------------------- numbers


def _finite(x: float | None) -> bool:
    return x is not None and not (isinstance(x, float) and not math.isfinite(x))


def _fixed(x: float, decimals: int) -> str:
    """``x`` with ``decimals`` decimals; a value that rounds to zero is written without a sign (``0.000``, never
    ``-0.000``; a positive one already is)."""
    s = f"{x:.{decimals}f}"
    return f"{0:.{decimals}f}" if s[:1] == "-" and float(s) == 0 else s


def _df(x: float) -> str:
    return str(int(round(x))) if abs(x - round(x)) < 1e-9 else f"{x:.2f}"


def _sci(x: float, digits: int) -> tuple[str, int]:
    mant, exp = f"{x:.{digits - 1}e}".split("e")
    return mant, int(exp)


class Target:
    """Shared number rules; a subclass gives the syntax of one target."""

    name = ""
    ci_comma = ", "  # between an interval's bounds
    _memo: dict[Cell, str]  # the cells formatted so far (see cell), made on first use

    def text(self, s: str) -> str:
        raise NotImplementedError

    def signed(self, s: str) -> str:
        raise NotImplementedError

    def sci(self, x: float, digits: int) -> str:
        raise NotImplementedError

    def p_zero(self) -> str:
        raise NotImplementedError

    def sym(self, name: str, arg: str | None) -> str:
        raise NotImplementedError

    def concat(self, parts: Iterable[str]) -> str:
        raise NotImplementedError

    def marked(self, inner: str, emphasis: str, marks: str) -> str:
        raise NotImplementedError

    def lines(self, parts: list[str]) -> str:
        """Stacked lines; plain targets write them on one line, separated by a dash."""
        return self.concat(self._between(parts, self.text(" \u2014 ")))

    @staticmethod
    def _between(parts: list[str], sep: str) -> list[str]:
        out: list[str] = []
        for p in parts:
            out += [sep, p] if out else [p]
        return out

    def code(self, s: str) -> str:
        """A spec key (``tests.mauchly_p``) as code."""
        raise NotImplementedError

    def versus(self, c: Versus) -> str:
        """A pairwise matrix cell; targets without a way to show the direction show the p-value alone."""
        return self.cell(c.as_marked())

    def pair(self, c: Pair) -> str:
        """Two systems compared: ``a vs b``."""
        return self.text(f"{c.a} vs {c.b}")

    def prose(self, s: str) -> str:
        """A caption or note: words escaped, the notation of :data:`PROSE_NOTATION` as its symbol (math mode
        in LaTeX, sub- and superscripts in HTML), spec keys (``tests.mauchly_p``) as code."""
        parts = _PROSE_RE.split(s)
        return self.concat(self.text(p) if i % 2 == 0 else self.sym(PROSE_NOTATION[p], None)
                           if p in PROSE_NOTATION else self.code(p) for i, p in enumerate(parts))

    def dash(self) -> str:
        return self.text(DASH[self.name]) if self.name == "html" else Safe(DASH["latex"])

    def cell(self, c: Cell | str) -> str:
        """One cell (or plain string) in this target's syntax, escaped once.

        Numbers (and the intervals and joins that hold them) are formatted directly: they rarely repeat, and
        hashing a frozen cell costs about as much as formatting it. Cells that do repeat (a k x k matrix holds
        every p-value twice, a report of many families the same names and dashes thousands of times) are
        frozen values, so each distinct one is formatted once per formatter."""
        fn = _DIRECT.get(type(c))
        if fn is not None:
            return fn(self, c)
        if isinstance(c, str):
            return self.text(c)
        try:
            memo = self._memo
        except AttributeError:
            memo = self._memo = {}
        try:
            return memo[c]
        except KeyError:
            pass
        except TypeError:  # a cell holding something unhashable: format it every time
            return _CELLS[type(c)](self, c)
        out = memo[c] = _CELLS[type(c)](self, c)
        return out


def _num(t: Target, c: Num) -> str:
    return _number(t, c.value, c.decimals)  # type: ignore[arg-type]


def _number(t: Target, x: float | None, decimals: int) -> str:
    """``t.signed(_fixed(x, decimals))`` when ``x`` is finite, else the dash (inlined: the most common cell)."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return t.dash()
    s = f"{x:.{decimals}f}"
    if s[:1] == "-" and float(s) == 0:
        s = f"{0:.{decimals}f}"
    return t.signed(s)


def _int(t: Target, c: Int) -> str:
    return t.dash() if c.value is None else t.signed(str(int(c.value)))


def _dfc(t: Target, c: Df) -> str:
    return t.dash() if c.value is None else t.text(_df(c.value))


def _count_text(x: float) -> str:
    """A count or rank sum: ``21``, ``33.5`` (ties give halves), at most two decimals."""
    return _df(x) if abs(x - round(x)) < 1e-9 else f"{x:.2f}".rstrip("0")


def _count(t: Target, c: Count) -> str:
    return t.dash() if c.value is None else t.signed(_count_text(c.value))


def _stat(t: Target, c: Stat) -> str:
    if c.value is None:
        return t.dash()
    return _number(t, c.value, 3) if abs(c.value) < 1e6 else t.sci(c.value, 3)


def _p(t: Target, c: P) -> str:
    x = c.value
    if x is None:
        return t.dash()
    if c.short:
        return t.text("<0.001" if x < 0.0005 else f"{x:.3f}")
    if x >= 0.001:
        return t.text(f"{x:#.4g}" if x < 1 else "1")
    return t.p_zero() if x == 0 else t.sci(x, 2)


def _ci(t: Target, c: CI) -> str:
    lo, hi = c.low, c.high
    if (lo is None and hi is None) or (not c.unbounded and (lo is None or hi is None)):
        return t.dash()
    lo_s = _number(t, lo, c.decimals) if lo is not None else t.sym("minus_infinity", None)
    hi_s = _number(t, hi, c.decimals) if hi is not None else t.sym("infinity", None)
    return t.concat([t.text("["), lo_s, t.text(t.ci_comma), hi_s, t.text("]")])


def _decision(t: Target, c: Decision) -> str:
    return t.dash() if c.significant is None else t.text("yes" if c.significant else "no")


_CELLS: dict[type, Callable[..., str]] = {
    Text: lambda t, c: t.text(c.text), Num: _num, Int: _int, Df: _dfc, Count: _count, Stat: _stat, P: _p, CI: _ci,
    Decision: _decision, Sym: lambda t, c: t.sym(c.name, c.arg), Pair: lambda t, c: t.pair(c),
    Join: lambda t, c: t.concat([t.cell(p) for p in c.parts]),
    Lines: lambda t, c: t.lines([t.cell(p) for p in c.parts]),
    Marked: lambda t, c: t.marked(t.cell(c.inner), c.emphasis, c.marks),
    Versus: lambda t, c: t.versus(c),
}
# formatted without the memo (see Target.cell): numbers rarely repeat; a Join is mostly a number with its interval
_DIRECT: dict[type, Callable[..., str]] = {k: _CELLS[k] for k in (Num, Int, Df, Count, Stat, P, CI, Decision, Join)}


class Html(Target):
    name = "html"
    ci_comma = ",\u00a0"  # an interval never breaks inside: a cell "value [low, high]" may break before it

    def text(self, s: str) -> str:
        return html_escape(s)

    def signed(self, s: str) -> str:
        # s is a formatted number (digits, point, sign, exponent): nothing in it to escape
        return Markup("\u2212" + s[1:]) if s.startswith("-") else Markup(s)

    def sci(self, x: float, digits: int) -> str:
        mant, e = _sci(x, digits)
        minus = "\u2212" if e < 0 else ""
        return Markup(f"{mant}\u00d710<sup>{minus}{abs(e)}</sup>")

    def p_zero(self) -> str:
        return Markup("&lt; 10<sup>\u2212300</sup>")

    def sym(self, name: str, arg: str | None) -> str:
        if name == "crit":
            return html_escape(f"crit (\u03b1\u00a0=\u00a0{arg})")  # "(α = 0.05)" on one line
        return Markup(SYMBOLS[name][0]) if name in SYMBOLS else html_escape(words(name))

    def concat(self, parts: Iterable[str]) -> str:
        # Markup("").join(parts), without re-escaping the parts that are markup already (most of them)
        return Markup("".join(p if isinstance(p, Markup) else html_escape(p) for p in parts))

    def marked(self, inner: str, emphasis: str, marks: str) -> str:
        tag = {"best": "strong", "second": "u"}.get(emphasis)
        out = Markup(f"<{tag}>{inner}</{tag}>") if tag else Markup(inner)
        return out + (Markup("<sup>%s</sup>") % marks if marks else Markup(""))

    def lines(self, parts: list[str]) -> str:
        return self.concat(self._between(parts, Markup("<br>")))

    def prose(self, s: str) -> str:
        """A caption or note (see :meth:`Target.prose`); one made of formatted cells (the screen's note of a
        table's constant columns, see :func:`sigreport.render.html.screen`) is markup already."""
        return s if isinstance(s, Markup) else super().prose(s)

    def code(self, s: str) -> str:
        return Markup("<code>%s</code>") % s

    def svg(self, svg: str | None) -> str:
        """A figure's SVG, drawn by sigreport itself and so trusted markup."""
        return Markup(svg or "")

    def versus(self, c: Versus) -> str:
        """The p-value (bold when significant, by the cell's class: see :meth:`css_class`), then a triangle
        pointing up when the row system is the better one, down when the column system is (significant
        pairs only). No ``<strong>`` per cell: a 20-system matrix has hundreds, and every inline element
        costs the PDF a box to lay out."""
        out = self.cell(P(c.value))
        if c.significant and c.row_better is not None:
            return Markup(f'{out}<span class="dir">{UP if c.row_better else DOWN}</span>')
        return out

    def pair(self, c: Pair) -> str:
        """``a vs b`` in spans that the stylesheet keeps on one line each (``a`` and ``vs b``): a narrow screen
        may wrap the pair there, never inside a name."""
        return Markup('<span class="pair"><span>%s</span> <span>vs %s</span></span>') % (c.a, c.b)

    def css_class(self, c: Cell | str) -> str:
        """Extra CSS class of a table cell: ``yes`` for a significant decision; ``vci`` for a value with its
        interval (``0.42 [0.31, 0.53]``, which a screen may break before the interval); ``sig`` (bold) for a
        significant matrix cell, with ``win`` or ``loss`` when its row system is better or worse."""
        if isinstance(c, Decision):
            return " yes" if c.significant is True else ""
        if isinstance(c, Join) and len(c.parts) > 1 and isinstance(c.parts[-1], CI):
            return " vci"
        if isinstance(c, Versus) and c.significant:
            return " sig" + ("" if c.row_better is None else " win" if c.row_better else " loss")
        return ""


class Latex(Target):
    """LaTeX syntax; collects the characters it had to replace by placeholders in ``unprintable``."""

    name = "latex"

    def __init__(self) -> None:
        self.unprintable: set[str] = set()
        self._texts: dict[str, Safe] = {}  # plain strings escaped so far (names and words repeat thousands of times)

    def text(self, s: str) -> str:
        if type(s) is not str:  # Safe (unchanged), or a subclass equal to a plain string that escapes otherwise
            return Safe(escape(s, self.unprintable))
        out = self._texts.get(s)
        if out is None:
            out = self._texts[s] = Safe(escape(s, self.unprintable))
        return out

    def signed(self, s: str) -> str:
        return Safe("$-$" + s[1:]) if s.startswith("-") else Safe(s)

    def sci(self, x: float, digits: int) -> str:
        mant, e = _sci(x, digits)
        return Safe(f"${mant}\\times 10^{{{e}}}$")

    def p_zero(self) -> str:
        return Safe(r"$<10^{-300}$")

    def sym(self, name: str, arg: str | None) -> str:
        if name == "crit":
            return Safe(r"$\text{crit}_{\alpha=" + escape(arg, self.unprintable) + "}$")
        if name in SYMBOLS:
            return Safe(f"${SYMBOLS[name][1]}$")
        return Safe(escape(words(name), self.unprintable))

    def concat(self, parts: Iterable[str]) -> str:
        return Safe("".join(parts))

    def marked(self, inner: str, emphasis: str, marks: str) -> str:
        out = bold(inner) if emphasis == "best" else rf"\underline{{{inner}}}" if emphasis == "second" else inner
        sup = escape(marks, self.unprintable).replace("\u2020", r"\dag{}").replace("\u2021", r"\ddag{}")
        return Safe(out + (rf"\textsuperscript{{{sup}}}" if marks else ""))

    def lines(self, parts: list[str]) -> str:
        """A nested one-column tabular (no package needed), bottom-aligned with the other heads. A line that
        opens with ``[`` (an interval) is guarded by ``{}``: ``\\\\`` would read it as its optional skip."""
        return Safe(r"\begin{tabular}[b]{@{}c@{}}" + r" \\ ".join(
            ("{}" + p if i and p.startswith("[") else p) for i, p in enumerate(parts)) + r"\end{tabular}")

    def code(self, s: str) -> str:
        return Safe(rf"\texttt{{{self.text(s)}}}")

    def number(self, c: Cell | str) -> str | None:
        """The cell as a bare number for a siunitx ``S`` column (``-0.123``, ``1.9e-9``), or ``None`` when it
        is not a plain number (text, an interval, a dash, a marked value)."""
        if isinstance(c, Versus):
            c = c.as_marked()
        if isinstance(c, (Num, Int, Df, Count, Stat, P)) and _finite(c.value):
            x = float(c.value)  # type: ignore[arg-type]
            if isinstance(c, Num):
                return _fixed(x, c.decimals)
            if isinstance(c, Int):
                return str(int(x))
            if isinstance(c, Df):
                return _df(x)
            if isinstance(c, Count):
                return _count_text(x)
            if isinstance(c, Stat) and abs(x) < 1e6:
                return _fixed(x, 3)
            if isinstance(c, Stat):
                mant, e = _sci(x, 3)
                return f"{mant}e{e}"
            if c.short:
                return f"{x:.3f}" if x >= 0.0005 else None
            if 0.001 <= x:
                return f"{x:#.4g}" if x < 1 else "1"
            if x > 0:
                mant, e = _sci(x, 2)
                return f"{mant}e{e}"
        return None

    def finalize(self, value: object) -> str:
        """Jinja ``finalize``: every printed value escaped once (Safe strings unchanged)."""
        return value if isinstance(value, Safe) else self.text("" if value is None else str(value))

    def row(self, cells: Iterable[Cell | str], bold: bool = False) -> Safe:
        """One table row's cells joined with ``&``; bold wraps every non-empty cell."""
        parts = [self.cell(c) for c in cells]
        if bold:
            parts = [bold(p) if p else p for p in parts]
        return Safe(" & ".join(parts))


def bold(latex: str) -> Safe:
    """Bold text and bold math alike (``\\textbf`` alone leaves ``$p_{adj}$`` or ``$1.9\\times 10^{-9}$`` light)."""
    return Safe(rf"\textbf{{\boldmath {latex}}}" if "$" in latex else rf"\textbf{{{latex}}}")


def words(name: str) -> str:
    """An identifier shown as words: ``proportion_of_wins`` -> ``proportion of wins``."""
    return name.replace("_", " ")


def html(c: Cell | str) -> str:
    """A cell as HTML markup."""
    return Html().cell(c)


def latex(c: Cell | str) -> str:
    """A cell as LaTeX (characters pdflatex cannot print become placeholders)."""
    return Latex().cell(c)
