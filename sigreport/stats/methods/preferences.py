"""The preference models' declaration (:class:`~sigreport.stats.declaration.ProcedureDeclaration`, kind
``preferences``): Bradley-Terry strengths of pairwise votes, with Davidson's ties or ties split, bootstrap
intervals and Rank (UB). The computation is :mod:`sigreport.stats.bradley_terry`, run by
``sigreport.analyses.preferences``."""

from __future__ import annotations

from sigreport.stats.declaration import ProcedureDeclaration, no_mde

BRADLEY_TERRY = ProcedureDeclaration(
    kind="preferences", name="bradley_terry", spec_name=None, display="Bradley-Terry model", record="PreferenceRecord",
    compute=None,
    applies=("preference_votes",),
    options={"preferences.ties": "ties: Davidson's model (davidson) or half a win each (split)",
             "preferences.resamples": "bootstrap replicates B of the strengths' intervals",
             "preferences.unit": "what the bootstrap resamples: battles, items (prompts with their votes), auto"},
    mde=no_mde("tests.power computes the minimum detectable difference of item-level pairwise families only"),
    references=("bradley1952", "davidson1970", "hunter2004", "chiang2024"), citation="Bradley and Terry 1952",
    random=True,  # the strengths' bootstrap intervals
    bibliography={
        "bradley1952": (
            "Bradley and Terry 1952", "Ralph Allan Bradley and Milton E. Terry. Rank analysis of incomplete block "
            "designs: I. The method of paired comparisons. Biometrika, 39(3/4):324-345, 1952.",
            "@article{bradley1952,\n  author = {Ralph Allan Bradley and Milton E. Terry},\n  title = {Rank Analysis "
            "of Incomplete Block Designs: {I}. The Method of Paired Comparisons},\n  journal = {Biometrika},\n"
            "  volume = {39},\n  number = {3/4},\n  pages = {324--345},\n  year = {1952}\n}"),
        "davidson1970": (
            "Davidson 1970", "Roger R. Davidson. On extending the Bradley-Terry model to accommodate ties in paired "
            "comparison experiments. Journal of the American Statistical Association, 65(329):317-328, 1970.",
            "@article{davidson1970,\n  author = {Roger R. Davidson},\n  title = {On Extending the {B}radley-{T}erry "
            "Model to Accommodate Ties in Paired Comparison Experiments},\n  journal = {Journal of the American "
            "Statistical Association},\n  volume = {65},\n  number = {329},\n  pages = {317--328},\n  year = {1970}\n}"),
        "hunter2004": (
            "Hunter 2004", "David R. Hunter. MM algorithms for generalized Bradley-Terry models. The Annals of "
            "Statistics, 32(1):384-406, 2004.",
            "@article{hunter2004,\n  author = {David R. Hunter},\n  title = {{MM} Algorithms for Generalized "
            "{B}radley-{T}erry Models},\n  journal = {The Annals of Statistics},\n  volume = {32},\n  number = {1},\n"
            "  pages = {384--406},\n  year = {2004}\n}"),
        "chiang2024": (
            "Chiang et al. 2024", "Wei-Lin Chiang, Lianmin Zheng, Ying Sheng, Anastasios N. Angelopoulos, Tianle Li, "
            "Dacheng Li, Banghua Zhu, Hao Zhang, Michael I. Jordan, Joseph E. Gonzalez and Ion Stoica. Chatbot "
            "Arena: an open platform for evaluating LLMs by human preference. In Proceedings of the 41st "
            "International Conference on Machine Learning (ICML), PMLR 235:8359-8388, 2024.",
            "@inproceedings{chiang2024,\n  author = {Wei-Lin Chiang and Lianmin Zheng and Ying Sheng and Anastasios "
            "N. Angelopoulos and Tianle Li and Dacheng Li and Banghua Zhu and Hao Zhang and Michael I. Jordan and "
            "Joseph E. Gonzalez and Ion Stoica},\n  title = {Chatbot Arena: An Open Platform for Evaluating {LLM}s "
            "by Human Preference},\n  booktitle = {Proceedings of the 41st International Conference on Machine "
            "Learning},\n  series = {PMLR},\n  volume = {235},\n  pages = {8359--8388},\n  year = {2024}\n}"),
    },
)

DECLARATIONS = (BRADLEY_TERRY,)
