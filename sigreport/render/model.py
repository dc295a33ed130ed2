"""The report model: what a report says, for every target at once.

Views (:mod:`sigreport.render.views`) build it once from :class:`~sigreport.results.Results`; the
formatter (:mod:`sigreport.render.format`) turns its cells into HTML or LaTeX; templates only place
it. Cells hold values (numbers, p-values, intervals, decisions, symbols), never formatted strings, so
a new target (Markdown, CSV) needs a formatter, not new views. ``Figure`` sits next to ``Table`` so
that figures drawn later slot into the same sections.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar, Literal, Union, overload

from sigreport import defaults
from sigreport.render.pages import Page, preset

# -------------------------------------------------------------------------------------------- cells


@dataclasses.dataclass(frozen=True)
class Text:
    """Plain words (a name, a label); escaped for the target."""

    text: str


@dataclasses.dataclass(frozen=True)
class Pair:
    """Two systems compared, shown ``a vs b`` (the row label of a pairwise table). HTML may wrap it before
    ``vs`` on a narrow screen, never inside a name (a name's hyphen is no place to break a line)."""

    a: str
    b: str


@dataclasses.dataclass(frozen=True)
class Num:
    """A number shown with fixed ``decimals``; ``None`` (or non-finite) is shown as a dash."""

    value: float | None
    decimals: int = 3


@dataclasses.dataclass(frozen=True)
class Int:
    """A count."""

    value: int | None


@dataclasses.dataclass(frozen=True)
class Df:
    """Degrees of freedom: an integer when whole, else two decimals."""

    value: float | None


@dataclasses.dataclass(frozen=True)
class Count:
    """A statistic that is a count (sign-test wins, a rank sum): an integer when whole, else at most two
    decimals (a rank sum with ties: ``33.5``)."""

    value: float | None


@dataclasses.dataclass(frozen=True)
class Stat:
    """A test statistic: three decimals, scientific notation from one million on."""

    value: float | None


@dataclasses.dataclass(frozen=True)
class P:
    """A p-value in a table: four significant digits, scientific below 0.001; ``short``: three decimals,
    ``<0.001`` below (the cells of a matrix in a paper)."""

    value: float | None
    short: bool = False


@dataclasses.dataclass(frozen=True)
class CI:
    """A confidence interval ``[low, high]`` at ``level``.

    ``unbounded``: a missing bound of a one-sided interval is infinite (shown as -inf / inf); otherwise
    an interval with a missing bound is not computable (a dash).
    """

    low: float | None
    high: float | None
    level: float
    decimals: int = 3
    unbounded: bool = False


@dataclasses.dataclass(frozen=True)
class Decision:
    """A test's decision: ``True`` significant, ``False`` not, ``None`` not computable."""

    significant: bool | None


@dataclasses.dataclass(frozen=True)
class Sym:
    """Notation (chi-square, subscripts, Greek) by name; ``arg`` fills a parameter (``crit`` at alpha).

    Names are listed in :data:`sigreport.render.format.SYMBOLS`; an unknown name is shown as words.
    """

    name: str
    arg: str | None = None


@dataclasses.dataclass(frozen=True)
class Join:
    """Cells shown one after another (``value [low, high]``, ``d_z = 0.42``)."""

    parts: tuple[Cell, ...]


@dataclasses.dataclass(frozen=True)
class Lines:
    """Cells stacked on lines of their own (a column head: metric above corpus); one line in plain text."""

    parts: tuple[Cell, ...]


@dataclasses.dataclass(frozen=True)
class Marked:
    """A main-table value: ``emphasis`` ``best`` (bold) or ``second`` (underlined) or none, and significance
    ``marks`` shown as a superscript (letters naming beaten systems, a dagger against the baseline)."""

    inner: Cell
    emphasis: Literal["", "best", "second"] = ""
    marks: str = ""


@dataclasses.dataclass(frozen=True)
class Versus:
    """A cell of a pairwise matrix: the adjusted p-value of the row system against the column system, the
    family's decision, and whether the row system is the better one (``None``: no direction).

    LaTeX shows it as the bold p-value when significant (as a :class:`Marked` ``best`` p-value); HTML adds
    the direction (an up or down triangle) and a tint."""

    value: float | None
    significant: bool | None
    row_better: bool | None = None

    def as_marked(self) -> Cell:
        """The cell without its direction: the p-value, bold (``Marked`` ``best``) when significant."""
        return Marked(P(self.value), "best") if self.significant else P(self.value)


Cell = Union[Text, Pair, Num, Int, Df, Count, Stat, P, CI, Decision, Sym, Join, Lines, Marked, Versus]


def join(*parts: Cell | str) -> Join:
    """A :class:`Join`; plain strings become :class:`Text`."""
    return Join(tuple(Text(p) if isinstance(p, str) else p for p in parts))


def cell(x: Cell | str) -> Cell:
    """Plain strings as :class:`Text`, cells unchanged."""
    return Text(x) if isinstance(x, str) else x


# -------------------------------------------------------------------------------------------- elements


@dataclasses.dataclass(frozen=True)
class Column:
    """A table column: its head and alignment; ``wrap``: its cells are words (a statistic's name, never a
    system's), which the HTML may wrap on a narrow screen so that a long first column leaves room."""

    header: Cell
    align: Literal["l", "r", "c"] = "r"
    wrap: bool = False


class Rows(Sequence[tuple[Cell, ...]]):
    """A table's rows, made the first time one is read; their number is known before.

    Why: a family of 20 systems has 190 pairs, and the HTML and LaTeX show it as a matrix (the rows are
    only written with ``outputs.html.pairwise`` or ``outputs.latex.pairwise: rows``); making 190 rows of
    twelve cells for each of a large report's 50 families, to count them, was a tenth of its views' time.
    Equal to the tuple of its rows; pickled as that tuple.
    """

    __slots__ = ("_n", "_make", "_rows")

    def __init__(self, n: int, make: Callable[[], Sequence[tuple[Cell, ...]]]):
        self._n = n
        self._make: Callable[[], Sequence[tuple[Cell, ...]]] | None = make
        self._rows: tuple[tuple[Cell, ...], ...] | None = None

    def made(self) -> tuple[tuple[Cell, ...], ...]:
        """The rows (made now if they were not)."""
        if self._rows is None:
            assert self._make is not None
            rows = tuple(self._make())
            if len(rows) != self._n:
                raise ValueError(f"a table promised {self._n} rows and made {len(rows)}")
            self._rows, self._make = rows, None
        return self._rows

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> tuple[Cell, ...]: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[tuple[Cell, ...]]: ...

    def __getitem__(self, i: int | slice) -> tuple[Cell, ...] | Sequence[tuple[Cell, ...]]:
        return self.made()[i]

    def __iter__(self) -> Iterator[tuple[Cell, ...]]:
        return iter(self.made())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Rows, tuple)):  # rows of another length are unequal without being made
            return len(self) == len(other) and self.made() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.made())

    def __repr__(self) -> str:
        return f"Rows({self._n})" if self._rows is None else repr(self._rows)

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (self.made(),))


@dataclasses.dataclass(frozen=True)
class Table:
    """A table with caption; ``notes`` go under it; ``key`` names it (see :mod:`sigreport.render.names`).

    ``name`` is the unique slug given by :func:`sigreport.render.names.assign` (file ``<name>.tex``,
    LaTeX label ``tab:<name>``, HTML id ``tab-<name>``); it is empty until the model is complete.
    """

    element: ClassVar[str] = "table"

    key: tuple[str | None, ...]
    caption: str
    columns: tuple[Column, ...]
    rows: Sequence[tuple[Cell, ...]]  # a tuple, or Rows made when first read
    notes: tuple[str, ...] = ()
    bold_rows: tuple[int, ...] = ()
    name: str = ""
    compact: Table | None = None  # the same decisions in fewer columns (a k x k matrix of a pairwise family)
    html_form: Table | None = None  # what the HTML shows instead of the rows (a large family's matrix)
    in_html: bool = True  # False: LaTeX (and results.json) only, e.g. per-pair tables of a family shown as a matrix
    pair_detail: bool = False  # per-pair detail of a family (paired differences): in LaTeX when short or asked
    # for (see sigreport.render.latex.latex_tables)
    forms: tuple[Table, ...] = ()  # a pairwise family's forms for a paper, in order of preference (LaTeX chooses
    # by outputs.latex.pairwise and the page: see sigreport.render.latex)
    matrix: bool = False  # a form that is a matrix of the systems (outputs.latex.pairwise: matrix takes these)
    form: str = ""  # what the form is, for tables/README.txt ("pairs with estimates", "lower-triangle matrix")
    sortable: bool = False  # HTML: a click on a head sorts the rows, a box filters them (inline script; the page
    # without script shows the plain table); the main table, and the searchable table of a large family
    screen_only: bool = False  # the HTML screen page only: not in the PDF nor LaTeX (a large family's every pair)


@dataclasses.dataclass(frozen=True)
class Figure:
    """A figure: drawn content for HTML (``svg``) and LaTeX (``pdf`` bytes), with a caption.

    Nothing draws figures yet; the type is here so that figures take their place in sections next to
    tables. ``name`` is given like a table's.
    """

    element: ClassVar[str] = "figure"

    key: tuple[str | None, ...]
    caption: str
    svg: str | None = None
    pdf: bytes | None = None
    name: str = ""
    screen_only: bool = False  # left out of the PDF (a large family's forest plot, unreadable at print size)
    env: str = "figure"  # the LaTeX float it is drawn for: figure (\\columnwidth) or figure* (\\textwidth)


Element = Union[Table, Figure]


@dataclasses.dataclass(frozen=True)
class LatexOptions:
    """``outputs.latex``: how tables are set for a paper (see :mod:`sigreport.render.latex` for the rule).

    ``float``: ``auto`` (the fit rule), ``table``, ``table*`` or ``none`` (a bare tabular);
    ``siunitx``: numeric columns as ``S`` columns; ``pairwise``: ``rows`` (one row per pair), ``matrix``
    (the compact k x k form) or ``auto`` (the matrix when the rows do not fit the text width);
    ``caption_prefix`` is put before every caption, ``label_prefix`` before every name in a label (None: the
    report's own, ``tab:<report>-`` for tables and ``fig:<report>-`` for figures, ``report`` being the slug
    of the spec's name, so that two reports can share a paper); ``page``: the page the tables and figures
    are set for (:class:`sigreport.render.pages.Page`); ``graphics_dir``: the folder the figure snippets
    name their PDFs in (see :func:`sigreport.render.figures.output.latex_snippet`).
    """

    float: str = defaults.LATEX_FLOAT
    siunitx: bool = defaults.LATEX_SIUNITX
    pairwise: str = defaults.LATEX_PAIRWISE
    caption_prefix: str = defaults.LATEX_CAPTION_PREFIX
    label_prefix: str | None = defaults.LATEX_LABEL_PREFIX
    page: Page = dataclasses.field(default_factory=lambda: preset(defaults.LATEX_PAGE))
    report: str = "report"
    graphics_dir: str | None = None
    figure_text: float = 9.0  # pt: the figures' text size at their printed width (figures/README.txt says it)

    def table_label(self, name: str) -> str:
        """The ``\\label`` of table ``name``."""
        return (self.label_prefix if self.label_prefix is not None else f"tab:{self.report}-") + name

    def figure_label(self, name: str) -> str:
        """The ``\\label`` of figure ``name``."""
        return (self.label_prefix if self.label_prefix is not None else f"fig:{self.report}-") + name


@dataclasses.dataclass(frozen=True)
class AnalysisView:
    """One analysis in the report: heading, elements, plain-language sentences, notes and warnings."""

    id: str
    kind: str
    heading: str
    elements: tuple[Element, ...]
    sentences: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def tables(self) -> tuple[Table, ...]:
        return tuple(e for e in self.elements if isinstance(e, Table))


@dataclasses.dataclass(frozen=True)
class Section:
    """The analyses of one metric on one corpus (or one labels section); ``anchor`` is its HTML id."""

    title: str
    key: tuple[str | None, ...]
    views: tuple[AnalysisView, ...]
    anchor: str = ""


@dataclasses.dataclass(frozen=True)
class ReleaseInfo:
    """A release's place in its archive, named at the top of its report: the release, the previous one (with
    ``previous_page``, a relative link to its report, when it is in the same archive), the release's diff
    against it (``diff``: a relative link, None for the first release) and the archive's index."""

    name: str
    previous: str | None = None
    previous_page: str | None = None
    diff: str | None = None
    index: str = "../index.html"


@dataclasses.dataclass(frozen=True)
class ReportModel:
    """A whole report: header, settings (name, value), sections in plan order, footer facts."""

    title: str
    description: str | None
    settings: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...]
    data_files: tuple[str, ...]
    seed: int
    version: str
    source: str = "results.json"
    main: tuple[Table, ...] = ()  # the main results table (parts when split), named main / main-<part>
    conclusions: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (metric and corpus, sentences)
    key_figure: Figure | None = None  # shown first; also in its section
    baseline: str | None = None  # the spec's baseline (or the families' reference), tagged in the HTML
    latex: LatexOptions = LatexOptions()  # outputs.latex of the spec
    methods: Any = None  # the methods paragraph (sigreport.render.views.methods.Methods), None for none
    release: ReleaseInfo | None = None  # the release this report is, in an archive (None: a plain report)

    def tables(self) -> list[Table]:
        return [t for s in self.sections for v in s.views for t in v.tables]

    def figures(self) -> list[Figure]:
        return [e for s in self.sections for v in s.views for e in v.elements if isinstance(e, Figure)]
