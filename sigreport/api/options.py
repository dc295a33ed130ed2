"""The renderer's options from a spec: the one place where the spec's ``outputs``, baseline and the settings the
report prints are turned into :class:`~sigreport.render.options.RenderOptions` (the renderer never sees the
spec). A section the spec leaves out gives its own defaults (the spec's models, which take the output defaults
from :mod:`sigreport.defaults`, as the options do for a report rendered from results.json alone).
"""

from __future__ import annotations

from collections.abc import Sequence

from sigreport.render.model import LatexOptions
from sigreport.render.options import (AgreementSettings, ClassificationSettings, FigureStyleOptions, MainTableOptions,
                                      RenderOptions, RunSettings)
from sigreport.render.pages import page_of
from sigreport.spec import AgreementSpec, ClassificationSpec, LatexSpec, Spec


def render_options(spec: Spec, formats: Sequence[str] | None = None) -> RenderOptions:
    """The render options of ``spec`` (``formats``: the formats written, when the command line chose them)."""
    out = spec.outputs
    mt, fs = out.main_table, out.figure_style
    return RenderOptions(
        main_table=MainTableOptions(metrics=_tuple(mt.metrics), corpora=_tuple(mt.corpora), cell=mt.cell,
                                    markers=mt.markers, decimals=mt.decimals, rank=mt.rank),
        latex=latex_options(out.latex), html_pairwise=out.html.pairwise, figures=tuple(out.figures),
        figure_style=FigureStyleOptions(width=fs.width, font=fs.font, font_size=fs.font_size),
        formats=tuple(formats if formats is not None else out.formats), baseline=spec.baseline,
        settings=run_settings(spec))


def latex_options(lx: LatexSpec) -> LatexOptions:
    """``outputs.latex`` as the renderer reads it (the page measured: a preset, or the spec's own widths)."""
    page = lx.page if isinstance(lx.page, str) else lx.page.model_dump()
    return LatexOptions(float=lx.float, siunitx=lx.siunitx, pairwise=lx.pairwise, caption_prefix=lx.caption_prefix,
                        label_prefix=lx.label_prefix, page=page_of(page), graphics_dir=lx.graphics_dir)


def run_settings(spec: Spec) -> RunSettings:
    """The settings the report prints that results.json does not hold."""
    data = spec.data
    agreement = spec.agreement is not None and spec.agreement.systems_vs_gold
    return RunSettings(
        missing=data.missing if data.scores is not None else None,
        corpus_level=any(m.corpus_level for m in spec.metrics.values()),
        cluster=data.columns.cluster,
        classification=classification_settings(spec) if data.predictions is not None else None,
        agreement=agreement_settings(spec.agreement or AgreementSpec())
        if data.annotations is not None or agreement else None)


def classification_settings(spec: Spec) -> ClassificationSettings:
    c = spec.classification or ClassificationSpec()
    return ClassificationSettings(
        labels=_tuple(c.labels), positive_label=c.positive_label, beta=c.beta, resamples=c.resamples,
        ci_level=c.ci_level if c.ci_level is not None else spec.interval_level(), level_set=c.ci_level is not None,
        mcnemar=c.mcnemar, mcnemar_correction=c.mcnemar_correction, test_metrics=tuple(c.test_metrics))


def agreement_settings(a: AgreementSpec) -> AgreementSettings:
    return AgreementSettings(level=a.level, order=_tuple(a.order), measures=_tuple(a.measures),
                             systems_vs_gold=a.systems_vs_gold, resamples=a.resamples)


def _tuple(items: Sequence[str] | None) -> tuple[str, ...] | None:
    return tuple(items) if items is not None else None
