"""The methods paragraph: what a report's analyses did, in sentences an author can paste into a paper.

Built from the records (every test that ran, its sidedness, correction and family, alpha, interval level,
resamples), the spec's seed and the decision model (:mod:`sigreport.results.decisions`: the test the
conclusions follow and why). Each sentence is text and citations; :meth:`Methods.latex` writes the citations
as ``\\cite`` keys of :data:`REFERENCES` (``tables/references.bib``), :meth:`Methods.plain` as
"(Holm 1979)" with a reference list, for methods.md and the HTML's Statistical choices.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Union

from sigreport.escaping import markdown_text
from sigreport.render.views.common import names_text, test_name, the
from sigreport.results.collection import Results
from sigreport.results.decisions import Decisions
from sigreport.results.records import (AgreementRecord, ClassificationRecord, DescriptivesRecord, PairwiseRecord,
                                       PosthocRecord, PreferenceRecord, Record)
from sigreport.results import methods as registry
from sigreport.results.methods import ALL_KINDS
from sigreport.results.methods import proportion, samples


@dataclasses.dataclass(frozen=True)
class Cite:
    """Citations at this place of a sentence: keys of :data:`REFERENCES`."""

    keys: tuple[str, ...]


Part = Union[str, Cite]

# key: (in-text form, full reference in plain text, BibTeX entry type and fields)
REFERENCES: dict[str, tuple[str, str, str]] = {
    "demsar2006": ("Demšar 2006", "Janez Demšar. Statistical comparisons of classifiers over multiple data sets. "
                   "Journal of Machine Learning Research, 7:1-30, 2006.",
                   "@article{demsar2006,\n  author = {Jane{\\v{z}} Dem{\\v{s}}ar},\n  title = {Statistical Comparisons "
                   "of Classifiers over Multiple Data Sets},\n  journal = {Journal of Machine Learning Research},\n"
                   "  volume = {7},\n  pages = {1--30},\n  year = {2006}\n}"),
    "holm1979": ("Holm 1979", "Sture Holm. A simple sequentially rejective multiple test procedure. Scandinavian "
                 "Journal of Statistics, 6(2):65-70, 1979.",
                 "@article{holm1979,\n  author = {Sture Holm},\n  title = {A Simple Sequentially Rejective Multiple "
                 "Test Procedure},\n  journal = {Scandinavian Journal of Statistics},\n  volume = {6},\n  number = {2},\n"
                 "  pages = {65--70},\n  year = {1979}\n}"),
    "hochberg1988": ("Hochberg 1988", "Yosef Hochberg. A sharper Bonferroni procedure for multiple tests of "
                     "significance. Biometrika, 75(4):800-802, 1988.",
                     "@article{hochberg1988,\n  author = {Yosef Hochberg},\n  title = {A Sharper {B}onferroni Procedure "
                     "for Multiple Tests of Significance},\n  journal = {Biometrika},\n  volume = {75},\n  number = {4},\n"
                     "  pages = {800--802},\n  year = {1988}\n}"),
    "hommel1988": ("Hommel 1988", "Gerhard Hommel. A stagewise rejective multiple test procedure based on a "
                   "modified Bonferroni test. Biometrika, 75(2):383-386, 1988.",
                   "@article{hommel1988,\n  author = {Gerhard Hommel},\n  title = {A Stagewise Rejective Multiple Test "
                   "Procedure Based on a Modified {B}onferroni Test},\n  journal = {Biometrika},\n  volume = {75},\n"
                   "  number = {2},\n  pages = {383--386},\n  year = {1988}\n}"),
    "dunn1961": ("Dunn 1961", "Olive Jean Dunn. Multiple comparisons among means. Journal of the American "
                 "Statistical Association, 56(293):52-64, 1961.",
                 "@article{dunn1961,\n  author = {Olive Jean Dunn},\n  title = {Multiple Comparisons among Means},\n"
                 "  journal = {Journal of the American Statistical Association},\n  volume = {56},\n  number = {293},\n"
                 "  pages = {52--64},\n  year = {1961}\n}"),
    "benjamini1995": ("Benjamini and Hochberg 1995", "Yoav Benjamini and Yosef Hochberg. Controlling the false "
                      "discovery rate: a practical and powerful approach to multiple testing. Journal of the Royal "
                      "Statistical Society, Series B, 57(1):289-300, 1995.",
                      "@article{benjamini1995,\n  author = {Yoav Benjamini and Yosef Hochberg},\n  title = {Controlling "
                      "the False Discovery Rate: A Practical and Powerful Approach to Multiple Testing},\n  journal = "
                      "{Journal of the Royal Statistical Society. Series B},\n  volume = {57},\n  number = {1},\n"
                      "  pages = {289--300},\n  year = {1995}\n}"),
    "benjamini2001": ("Benjamini and Yekutieli 2001", "Yoav Benjamini and Daniel Yekutieli. The control of the "
                      "false discovery rate in multiple testing under dependency. Annals of Statistics, "
                      "29(4):1165-1188, 2001.",
                      "@article{benjamini2001,\n  author = {Yoav Benjamini and Daniel Yekutieli},\n  title = {The "
                      "Control of the False Discovery Rate in Multiple Testing under Dependency},\n  journal = "
                      "{The Annals of Statistics},\n  volume = {29},\n  number = {4},\n  pages = {1165--1188},\n"
                      "  year = {2001}\n}"),
    "student1908": ("Student 1908", "Student. The probable error of a mean. Biometrika, 6(1):1-25, 1908.",
                    "@article{student1908,\n  author = {Student},\n  title = {The Probable Error of a Mean},\n"
                    "  journal = {Biometrika},\n  volume = {6},\n  number = {1},\n  pages = {1--25},\n  year = {1908}\n}"),
    "wilcoxon1945": ("Wilcoxon 1945", "Frank Wilcoxon. Individual comparisons by ranking methods. Biometrics "
                     "Bulletin, 1(6):80-83, 1945.",
                     "@article{wilcoxon1945,\n  author = {Frank Wilcoxon},\n  title = {Individual Comparisons by Ranking "
                     "Methods},\n  journal = {Biometrics Bulletin},\n  volume = {1},\n  number = {6},\n  pages = {80--83},\n"
                     "  year = {1945}\n}"),
    "dixon1946": ("Dixon and Mood 1946", "W. J. Dixon and A. M. Mood. The statistical sign test. Journal of the "
                  "American Statistical Association, 41(236):557-566, 1946.",
                  "@article{dixon1946,\n  author = {W. J. Dixon and A. M. Mood},\n  title = {The Statistical Sign Test},\n"
                  "  journal = {Journal of the American Statistical Association},\n  volume = {41},\n  number = {236},\n"
                  "  pages = {557--566},\n  year = {1946}\n}"),
    "efron1993": ("Efron and Tibshirani 1993", "Bradley Efron and Robert J. Tibshirani. An Introduction to the "
                  "Bootstrap. Chapman & Hall, 1993.",
                  "@book{efron1993,\n  author = {Bradley Efron and Robert J. Tibshirani},\n  title = {An Introduction to "
                  "the Bootstrap},\n  publisher = {Chapman \\& Hall},\n  year = {1993}\n}"),
    "noreen1989": ("Noreen 1989", "Eric W. Noreen. Computer-Intensive Methods for Testing Hypotheses: An "
                   "Introduction. Wiley, 1989.",
                   "@book{noreen1989,\n  author = {Eric W. Noreen},\n  title = {Computer-Intensive Methods for Testing "
                   "Hypotheses: An Introduction},\n  publisher = {Wiley},\n  year = {1989}\n}"),
    "post2018": ("Post 2018", "Matt Post. A call for clarity in reporting BLEU scores. In Proceedings of the Third "
                 "Conference on Machine Translation: Research Papers, pages 186-191, 2018.",
                 "@inproceedings{post2018,\n  author = {Matt Post},\n  title = {A Call for Clarity in Reporting "
                 "{BLEU} Scores},\n  booktitle = {Proceedings of the Third Conference on Machine Translation: "
                 "Research Papers},\n  pages = {186--191},\n  year = {2018}\n}"),
    "dietterich1998": ("Dietterich 1998", "Thomas G. Dietterich. Approximate statistical tests for comparing "
                       "supervised classification learning algorithms. Neural Computation, 10(7):1895-1923, 1998.",
                       "@article{dietterich1998,\n  author = {Thomas G. Dietterich},\n  title = {Approximate Statistical "
                       "Tests for Comparing Supervised Classification Learning Algorithms},\n  journal = {Neural "
                       "Computation},\n  volume = {10},\n  number = {7},\n  pages = {1895--1923},\n  year = {1998}\n}"),
    "alpaydin1999": ("Alpaydın 1999", "Ethem Alpaydın. Combined 5 x 2 cv F test for comparing supervised "
                     "classification learning algorithms. Neural Computation, 11(8):1885-1892, 1999.",
                     "@article{alpaydin1999,\n  author = {Ethem Alpayd{\\i}n},\n  title = {Combined 5 $\\times$ 2 cv {F} "
                     "Test for Comparing Supervised Classification Learning Algorithms},\n  journal = {Neural "
                     "Computation},\n  volume = {11},\n  number = {8},\n  pages = {1885--1892},\n  year = {1999}\n}"),
    "nadeau2003": ("Nadeau and Bengio 2003", "Claude Nadeau and Yoshua Bengio. Inference for the generalization "
                   "error. Machine Learning, 52(3):239-281, 2003.",
                   "@article{nadeau2003,\n  author = {Claude Nadeau and Yoshua Bengio},\n  title = {Inference for the "
                   "Generalization Error},\n  journal = {Machine Learning},\n  volume = {52},\n  number = {3},\n"
                   "  pages = {239--281},\n  year = {2003}\n}"),
    "friedman1937": ("Friedman 1937", "Milton Friedman. The use of ranks to avoid the assumption of normality "
                     "implicit in the analysis of variance. Journal of the American Statistical Association, "
                     "32(200):675-701, 1937.",
                     "@article{friedman1937,\n  author = {Milton Friedman},\n  title = {The Use of Ranks to Avoid the "
                     "Assumption of Normality Implicit in the Analysis of Variance},\n  journal = {Journal of the "
                     "American Statistical Association},\n  volume = {32},\n  number = {200},\n  pages = {675--701},\n"
                     "  year = {1937}\n}"),
    "iman1980": ("Iman and Davenport 1980", "Ronald L. Iman and James M. Davenport. Approximations of the critical "
                 "region of the Friedman statistic. Communications in Statistics - Theory and Methods, "
                 "9(6):571-595, 1980.",
                 "@article{iman1980,\n  author = {Ronald L. Iman and James M. Davenport},\n  title = {Approximations of "
                 "the Critical Region of the {F}riedman Statistic},\n  journal = {Communications in Statistics -- "
                 "Theory and Methods},\n  volume = {9},\n  number = {6},\n  pages = {571--595},\n  year = {1980}\n}"),
    "nemenyi1963": ("Nemenyi 1963", "Peter Nemenyi. Distribution-free Multiple Comparisons. PhD thesis, Princeton "
                    "University, 1963.",
                    "@phdthesis{nemenyi1963,\n  author = {Peter Nemenyi},\n  title = {Distribution-free Multiple "
                    "Comparisons},\n  school = {Princeton University},\n  year = {1963}\n}"),
    "garcia2008": ("García and Herrera 2008", "Salvador García and Francisco Herrera. An extension on \"Statistical "
                   "comparisons of classifiers over multiple data sets\" for all pairwise comparisons. Journal of "
                   "Machine Learning Research, 9:2677-2694, 2008.",
                   "@article{garcia2008,\n  author = {Salvador Garc{\\'\\i}a and Francisco Herrera},\n  title = {An "
                   "Extension on ``Statistical Comparisons of Classifiers over Multiple Data Sets'' for all Pairwise "
                   "Comparisons},\n  journal = {Journal of Machine Learning Research},\n  volume = {9},\n"
                   "  pages = {2677--2694},\n  year = {2008}\n}"),
    "shaffer1986": ("Shaffer 1986", "Juliet Popper Shaffer. Modified sequentially rejective multiple test "
                    "procedures. Journal of the American Statistical Association, 81(395):826-831, 1986.",
                    "@article{shaffer1986,\n  author = {Juliet Popper Shaffer},\n  title = {Modified Sequentially "
                    "Rejective Multiple Test Procedures},\n  journal = {Journal of the American Statistical "
                    "Association},\n  volume = {81},\n  number = {395},\n  pages = {826--831},\n  year = {1986}\n}"),
    "bergmann1988": ("Bergmann and Hommel 1988", "Beate Bergmann and Gerhard Hommel. Improvements of general "
                     "multiple test procedures for redundant systems of hypotheses. In Multiple Hypothesenprüfung - "
                     "Multiple Hypotheses Testing, pages 100-115. Springer, 1988.",
                     "@incollection{bergmann1988,\n  author = {Beate Bergmann and Gerhard Hommel},\n  title = "
                     "{Improvements of General Multiple Test Procedures for Redundant Systems of Hypotheses},\n"
                     "  booktitle = {Multiple Hypothesenpr{\\\"u}fung -- Multiple Hypotheses Testing},\n"
                     "  pages = {100--115},\n  publisher = {Springer},\n  year = {1988}\n}"),
    "mauchly1940": ("Mauchly 1940", "John W. Mauchly. Significance test for sphericity of a normal n-variate "
                    "distribution. Annals of Mathematical Statistics, 11(2):204-209, 1940.",
                    "@article{mauchly1940,\n  author = {John W. Mauchly},\n  title = {Significance Test for Sphericity "
                    "of a Normal $n$-Variate Distribution},\n  journal = {The Annals of Mathematical Statistics},\n"
                    "  volume = {11},\n  number = {2},\n  pages = {204--209},\n  year = {1940}\n}"),
    "greenhouse1959": ("Greenhouse and Geisser 1959", "Samuel W. Greenhouse and Seymour Geisser. On methods in the "
                       "analysis of profile data. Psychometrika, 24(2):95-112, 1959.",
                       "@article{greenhouse1959,\n  author = {Samuel W. Greenhouse and Seymour Geisser},\n  title = {On "
                       "Methods in the Analysis of Profile Data},\n  journal = {Psychometrika},\n  volume = {24},\n"
                       "  number = {2},\n  pages = {95--112},\n  year = {1959}\n}"),
    "huynh1976": ("Huynh and Feldt 1976", "Huynh Huynh and Leonard S. Feldt. Estimation of the Box correction for "
                  "degrees of freedom from sample data in randomized block and split-plot designs. Journal of "
                  "Educational Statistics, 1(1):69-82, 1976.",
                  "@article{huynh1976,\n  author = {Huynh Huynh and Leonard S. Feldt},\n  title = {Estimation of the "
                  "{B}ox Correction for Degrees of Freedom from Sample Data in Randomized Block and Split-Plot "
                  "Designs},\n  journal = {Journal of Educational Statistics},\n  volume = {1},\n  number = {1},\n"
                  "  pages = {69--82},\n  year = {1976}\n}"),
    "shapiro1965": ("Shapiro and Wilk 1965", "S. S. Shapiro and M. B. Wilk. An analysis of variance test for "
                    "normality (complete samples). Biometrika, 52(3/4):591-611, 1965.",
                    "@article{shapiro1965,\n  author = {S. S. Shapiro and M. B. Wilk},\n  title = {An Analysis of "
                    "Variance Test for Normality (Complete Samples)},\n  journal = {Biometrika},\n  volume = {52},\n"
                    "  number = {3/4},\n  pages = {591--611},\n  year = {1965}\n}"),
    "mcnemar1947": ("McNemar 1947", "Quinn McNemar. Note on the sampling error of the difference between "
                    "correlated proportions or percentages. Psychometrika, 12(2):153-157, 1947.",
                    "@article{mcnemar1947,\n  author = {Quinn McNemar},\n  title = {Note on the Sampling Error of the "
                    "Difference between Correlated Proportions or Percentages},\n  journal = {Psychometrika},\n"
                    "  volume = {12},\n  number = {2},\n  pages = {153--157},\n  year = {1947}\n}"),
    "cochran1950": ("Cochran 1950", "William G. Cochran. The comparison of percentages in matched samples. "
                    "Biometrika, 37(3/4):256-266, 1950.",
                    "@article{cochran1950,\n  author = {William G. Cochran},\n  title = {The Comparison of Percentages in "
                    "Matched Samples},\n  journal = {Biometrika},\n  volume = {37},\n  number = {3/4},\n"
                    "  pages = {256--266},\n  year = {1950}\n}"),
    "benavoli2017": ("Benavoli et al. 2017", "Alessio Benavoli, Giorgio Corani, Janez Demšar and Marco Zaffalon. "
                     "Time for a change: a tutorial for comparing multiple classifiers through Bayesian analysis. "
                     "Journal of Machine Learning Research, 18(77):1-36, 2017.",
                     "@article{benavoli2017,\n  author = {Alessio Benavoli and Giorgio Corani and Jane{\\v{z}} "
                     "Dem{\\v{s}}ar and Marco Zaffalon},\n  title = {Time for a Change: a Tutorial for Comparing "
                     "Multiple Classifiers Through {B}ayesian Analysis},\n  journal = {Journal of Machine Learning "
                     "Research},\n  volume = {18},\n  number = {77},\n  pages = {1--36},\n  year = {2017}\n}"),
    "corani2015": ("Corani and Benavoli 2015", "Giorgio Corani and Alessio Benavoli. A Bayesian approach for "
                   "comparing cross-validated algorithms on multiple data sets. Machine Learning, "
                   "100(2-3):285-304, 2015.",
                   "@article{corani2015,\n  author = {Giorgio Corani and Alessio Benavoli},\n  title = {A {B}ayesian "
                   "Approach for Comparing Cross-Validated Algorithms on Multiple Data Sets},\n  journal = {Machine "
                   "Learning},\n  volume = {100},\n  number = {2--3},\n  pages = {285--304},\n  year = {2015}\n}"),
    "rubin1981": ("Rubin 1981", "Donald B. Rubin. The Bayesian bootstrap. Annals of Statistics, 9(1):130-134, "
                  "1981.",
                  "@article{rubin1981,\n  author = {Donald B. Rubin},\n  title = {The {B}ayesian Bootstrap},\n"
                  "  journal = {The Annals of Statistics},\n  volume = {9},\n  number = {1},\n  pages = {130--134},\n"
                  "  year = {1981}\n}"),
    "cohen1960": ("Cohen 1960", "Jacob Cohen. A coefficient of agreement for nominal scales. Educational and "
                  "Psychological Measurement, 20(1):37-46, 1960.",
                  "@article{cohen1960,\n  author = {Jacob Cohen},\n  title = {A Coefficient of Agreement for Nominal "
                  "Scales},\n  journal = {Educational and Psychological Measurement},\n  volume = {20},\n  number = {1},"
                  "\n  pages = {37--46},\n  year = {1960}\n}"),
    "schuirmann1987": ("Schuirmann 1987", "Donald J. Schuirmann. A comparison of the two one-sided tests procedure "
                       "and the power approach for assessing the equivalence of average bioavailability. Journal of "
                       "Pharmacokinetics and Biopharmaceutics, 15(6):657-680, 1987.",
                       "@article{schuirmann1987,\n  author = {Donald J. Schuirmann},\n  title = {A Comparison of the Two "
                       "One-Sided Tests Procedure and the Power Approach for Assessing the Equivalence of Average "
                       "Bioavailability},\n  journal = {Journal of Pharmacokinetics and Biopharmaceutics},\n  volume = "
                       "{15},\n  number = {6},\n  pages = {657--680},\n  year = {1987}\n}"),
    "lakens2017": ("Lakens 2017", "Daniël Lakens. Equivalence tests: a practical primer for t tests, correlations, and "
                   "meta-analyses. Social Psychological and Personality Science, 8(4):355-362, 2017.",
                   "@article{lakens2017,\n  author = {Dani{\\\"e}l Lakens},\n  title = {Equivalence Tests: A Practical "
                   "Primer for t Tests, Correlations, and Meta-Analyses},\n  journal = {Social Psychological and "
                   "Personality Science},\n  volume = {8},\n  number = {4},\n  pages = {355--362},\n  year = {2017}\n}"),
    "wellek2010": ("Wellek 2010", "Stefan Wellek. Testing Statistical Hypotheses of Equivalence and Noninferiority. "
                   "Chapman and Hall/CRC, 2nd edition, 2010.",
                   "@book{wellek2010,\n  author = {Stefan Wellek},\n  title = {Testing Statistical Hypotheses of "
                   "Equivalence and Noninferiority},\n  publisher = {Chapman and Hall/CRC},\n  edition = {2},\n"
                   "  year = {2010}\n}"),
    "dror2017": ("Dror et al. 2017", "Rotem Dror, Gili Baumer, Marina Bogomolov and Roi Reichart. Replicability "
                 "analysis for natural language processing: testing significance with multiple datasets. Transactions "
                 "of the Association for Computational Linguistics, 5:471-486, 2017.",
                 "@article{dror2017,\n  author = {Rotem Dror and Gili Baumer and Marina Bogomolov and Roi Reichart},\n"
                 "  title = {Replicability Analysis for Natural Language Processing: Testing Significance with Multiple "
                 "Datasets},\n  journal = {Transactions of the Association for Computational Linguistics},\n  volume = "
                 "{5},\n  pages = {471--486},\n  year = {2017}\n}"),
    "lakens2013": ("Lakens 2013", "Daniël Lakens. Calculating and reporting effect sizes to facilitate cumulative "
                   "science: a practical primer for t-tests and ANOVAs. Frontiers in Psychology, 4:863, 2013.",
                   "@article{lakens2013,\n  author = {Dani{\\\"e}l Lakens},\n  title = {Calculating and Reporting Effect "
                   "Sizes to Facilitate Cumulative Science: A Practical Primer for t-tests and {ANOVA}s},\n  journal = "
                   "{Frontiers in Psychology},\n  volume = {4},\n  pages = {863},\n  year = {2013}\n}"),
    "liang1986": ("Liang and Zeger 1986", "Kung-Yee Liang and Scott L. Zeger. Longitudinal data analysis using "
                  "generalized linear models. Biometrika, 73(1):13-22, 1986.",
                  "@article{liang1986,\n  author = {Kung-Yee Liang and Scott L. Zeger},\n  title = {Longitudinal Data "
                  "Analysis Using Generalized Linear Models},\n  journal = {Biometrika},\n  volume = {73},\n"
                  "  number = {1},\n  pages = {13--22},\n  year = {1986}\n}"),
    "cameron2015": ("Cameron and Miller 2015", "A. Colin Cameron and Douglas L. Miller. A practitioner's guide to "
                    "cluster-robust inference. Journal of Human Resources, 50(2):317-372, 2015.",
                    "@article{cameron2015,\n  author = {A. Colin Cameron and Douglas L. Miller},\n  title = {A "
                    "Practitioner's Guide to Cluster-Robust Inference},\n  journal = {Journal of Human Resources},\n"
                    "  volume = {50},\n  number = {2},\n  pages = {317--372},\n  year = {2015}\n}"),
    "miller2024": ("Miller 2024", "Evan Miller. Adding error bars to evals: a statistical approach to language model "
                   "evaluations. arXiv:2411.00640, 2024.",
                   "@article{miller2024,\n  author = {Evan Miller},\n  title = {Adding Error Bars to Evals: A "
                   "Statistical Approach to Language Model Evaluations},\n  journal = {arXiv preprint "
                   "arXiv:2411.00640},\n  year = {2024}\n}"),
    "cochran1977": ("Cochran 1977", "William G. Cochran. Sampling Techniques, 3rd edition. Wiley, New York, 1977.",
                    "@book{cochran1977,\n  author = {William G. Cochran},\n  title = {Sampling Techniques},\n"
                    "  edition = {3},\n  publisher = {Wiley},\n  address = {New York},\n  year = {1977}\n}"),
    "satterthwaite1946": ("Satterthwaite 1946", "F. E. Satterthwaite. An approximate distribution of estimates of "
                          "variance components. Biometrics Bulletin, 2(6):110-114, 1946.",
                          "@article{satterthwaite1946,\n  author = {F. E. Satterthwaite},\n  title = {An Approximate "
                          "Distribution of Estimates of Variance Components},\n  journal = {Biometrics Bulletin},\n"
                          "  volume = {2},\n  number = {6},\n  pages = {110--114},\n  year = {1946}\n}"),
    "chen2021": ("Chen et al. 2021", "Mark Chen, Jerry Tworek, Heewoo Jun, Qiming Yuan, Henrique Ponde de Oliveira Pinto, "
                 "Jared Kaplan, et al. Evaluating large language models trained on code. arXiv:2107.03374, 2021.",
                 "@article{chen2021,\n  author = {Mark Chen and Jerry Tworek and Heewoo Jun and Qiming Yuan and "
                 "Henrique Ponde de Oliveira Pinto and Jared Kaplan and others},\n  title = {Evaluating Large "
                 "Language Models Trained on Code},\n  journal = {arXiv preprint arXiv:2107.03374},\n  year = "
                 "{2021}\n}"),
    "wilson1927": ("Wilson 1927", "Edwin B. Wilson. Probable inference, the law of succession, and statistical "
                   "inference. Journal of the American Statistical Association, 22(158):209-212, 1927.",
                   "@article{wilson1927,\n  author = {Edwin B. Wilson},\n  title = {Probable Inference, the Law of "
                   "Succession, and Statistical Inference},\n  journal = {Journal of the American Statistical "
                   "Association},\n  volume = {22},\n  number = {158},\n  pages = {209--212},\n  year = {1927}\n}"),
    "clopper1934": ("Clopper and Pearson 1934", "C. J. Clopper and E. S. Pearson. The use of confidence or "
                    "fiducial limits illustrated in the case of the binomial. Biometrika, 26(4):404-413, 1934.",
                    "@article{clopper1934,\n  author = {C. J. Clopper and E. S. Pearson},\n  title = {The Use of "
                    "Confidence or Fiducial Limits Illustrated in the Case of the Binomial},\n  journal = {Biometrika},"
                    "\n  volume = {26},\n  number = {4},\n  pages = {404--413},\n  year = {1934}\n}"),
    "brown2001": ("Brown, Cai and DasGupta 2001", "Lawrence D. Brown, T. Tony Cai and Anirban DasGupta. Interval "
                  "estimation for a binomial proportion. Statistical Science, 16(2):101-133, 2001.",
                  "@article{brown2001,\n  author = {Lawrence D. Brown and T. Tony Cai and Anirban DasGupta},\n  "
                  "title = {Interval Estimation for a Binomial Proportion},\n  journal = {Statistical Science},\n  "
                  "volume = {16},\n  number = {2},\n  pages = {101--133},\n  year = {2001}\n}"),
    "korn1998": ("Korn and Graubard 1998", "Edward L. Korn and Barry I. Graubard. Confidence intervals for "
                 "proportions with small expected number of positive counts estimated from survey data. Survey "
                 "Methodology, 24(2):193-201, 1998.",
                 "@article{korn1998,\n  author = {Edward L. Korn and Barry I. Graubard},\n  title = {Confidence "
                 "Intervals for Proportions with Small Expected Number of Positive Counts Estimated from Survey "
                 "Data},\n  journal = {Survey Methodology},\n  volume = {24},\n  number = {2},\n  pages = "
                 "{193--201},\n  year = {1998}\n}"),
    "newcombe1998": ("Newcombe 1998", "Robert G. Newcombe. Improved confidence intervals for the difference between "
                     "binomial proportions based on paired data. Statistics in Medicine, 17(22):2635-2650, 1998.",
                     "@article{newcombe1998,\n  author = {Robert G. Newcombe},\n  title = {Improved Confidence "
                     "Intervals for the Difference between Binomial Proportions Based on Paired Data},\n  journal = "
                     "{Statistics in Medicine},\n  volume = {17},\n  number = {22},\n  pages = {2635--2650},\n  "
                     "year = {1998}\n}"),
}

def reference(key: str) -> tuple[str, str, str]:
    """The bibliography entry of ``key``: :data:`REFERENCES`, or the one a plugin's declaration brings."""
    found = REFERENCES.get(key)
    if found is not None:
        return found
    for kind in ALL_KINDS:
        for d in registry.methods(kind):
            if key in d.bibliography:
                return d.bibliography[key]
    raise KeyError(f"no bibliography entry {key!r}")


SIDES = {"two-sided": "two-sided", "greater": "one-sided (the first system of a pair scoring higher)",
         "less": "one-sided (the first system of a pair scoring lower)"}
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def number(n: int) -> str:
    """A count in the paragraph's prose: words from zero to nine, numerals from 10 on ("three systems", "14
    corpora", "1,000 replicates"), the usual style-guide rule for counts. Statistics, alpha, levels, seeds, B,
    versions and formulas keep their numerals ("B = 2000", "1 plus the number of systems")."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else f"{n:,}"


@dataclasses.dataclass(frozen=True)
class Methods:
    """The paragraph as sentences of text and citations."""

    sentences: tuple[tuple[Part, ...], ...]

    def keys(self) -> list[str]:
        """The cited keys, in order of first citation."""
        return list(dict.fromkeys(k for s in self.sentences for p in s if isinstance(p, Cite) for k in p.keys))

    def plain(self) -> str:
        """The paragraph with citations as '(Holm 1979; Demšar 2006)'."""
        return " ".join("".join(p if isinstance(p, str) else " (" + "; ".join(reference(k)[0] for k in p.keys) + ")"
                                for p in s) for s in self.sentences)

    def references(self) -> list[str]:
        """The full references of the cited works, in order of first citation."""
        return [reference(k)[1] for k in self.keys()]

    def latex(self, escape: Callable[[str], str], cite: str = "cite") -> str:
        """The paragraph in LaTeX: text through ``escape``, citations as ``\\<cite>{...}`` (every citation of
        the paragraph is parenthetical, after the method it names: ``citep`` under natbib, where ``\\cite`` would
        print the author a second time, "Holm's procedure Holm [1979]")."""
        return " ".join("".join(escape(p) if isinstance(p, str) else f"~\\{cite}{{" + ",".join(p.keys) + "}"
                                for p in s) for s in self.sentences)

    def bibtex(self) -> str:
        """The BibTeX entries of the cited works."""
        return "\n\n".join(reference(k)[2] for k in self.keys()) + "\n"

    def library_bibtex(self) -> str:
        """:func:`library_bibtex` (for the LaTeX writer, which the views' layer sits above)."""
        return library_bibtex()


def library_bibtex() -> str:
    """Every work sigreport can cite (:data:`REFERENCES` and the methods' declarations), one entry per key with
    the same fields in every report: a report's ``references.bib``, so that one report's file serves a paper
    of any number of reports (bibtex refuses a key given twice, even by identical entries in two files, with
    "Repeated entry" and exit 2; it lists only the cited works)."""
    entries = {k: v[2] for k, v in REFERENCES.items()}
    for kind in ALL_KINDS:
        for d in registry.methods(kind):
            for k, v in d.bibliography.items():
                entries.setdefault(k, v[2])
    return "\n\n".join(entries.values()) + "\n"


def methods(results: Results, decisions: Decisions | None = None) -> Methods:
    """The methods paragraph of ``results`` (``decisions``: its decision model, for the test the conclusions
    follow and why)."""
    records = list(results.records)
    out: list[tuple[Part, ...]] = [_design(results), _scored_by(results)]
    out += _families(results, records)
    out += _clusters(records)
    out += _macro(results, records)
    out += _omnibus(records)
    out += _proportions(results, records)
    out += _answers(results, records)
    out += _preferences(records)
    out += _others(records, {k: m.label for k, m in results.metrics.items()})
    out += _primary(decisions, corrected(records))
    out.append((f"Every analysis was run with sigreport {results.sigreport_version}.",))
    out += _seed(results, records)
    return Methods(tuple(s for s in out if s))


def corrected(records: Sequence[Record]) -> bool:
    """Whether a correction for multiple comparisons changed any p-value (a correction over a family of more
    than one pairwise test)."""
    return any(isinstance(r, PairwiseRecord) and r.correction != "none" and r.family_size > 1 for r in records)


INTERVAL_RECORDS = (DescriptivesRecord, PairwiseRecord, ClassificationRecord, AgreementRecord)
"""The records with an interval method of their own (``ci_method``)."""


def random_parts(records: Sequence[Record]) -> list[str]:
    """What in the report depends on the seed, named for a sentence: every method whose declaration is
    ``random`` (resampling tests, Bradley-Terry intervals, Bayesian posterior samples), the simulated minimum
    detectable differences (an MDE rule that is ``random``), and bootstrap intervals of the records no method
    declares (descriptives, classification and agreement measures: their ``ci_method``)."""
    tests: list[str] = []
    others: list[str] = []
    for r in records:
        method = r.method
        if r.kind in ALL_KINDS and method is not None and method in registry.names(r.kind):
            d = registry.method(r.kind, method)
            if d.random:
                tests.append(f"the {test_name(r.kind, str(method), cited=False)}")
            if d.mde.random and isinstance(r, PairwiseRecord) and any(p.mde is not None for p in r.pairs):
                others.append("the simulated minimum detectable differences")
        elif isinstance(r, INTERVAL_RECORDS) and (r.ci_method or "").startswith("bootstrap"):
            others.append("the bootstrap intervals")
    return list(dict.fromkeys(tests + others))


def _seed(results: Results, records: Sequence[Record]) -> list[tuple[Part, ...]]:
    """The seed, only when something in the report drew random numbers (:func:`random_parts`)."""
    parts = random_parts(records)
    if not parts:
        return []
    return [(f"Random numbers for {names_text(parts)} were drawn from seed {results.seed} (each analysis derives "
             "its random stream from the seed and its name, so the numbers are reproducible).",)]


def _design(results: Results) -> tuple[Part, ...]:
    systems = list(results.systems)
    labels = [m.label for m in results.metrics.values()]
    corpora = [c for c in results.corpora if c is not None]
    levels = {r.level for r in results.records}
    unit = ("one score per system and corpus, compared across the corpora" if "corpora" in levels else
            "the cross-validation folds" if "folds" in levels else "per-item scores")
    where = f" on {names_text(corpora)}" if corpora and "corpora" not in levels else (
        f" over {number(len(corpora))} corpora" if corpora else "")
    if not labels and any(isinstance(r, PreferenceRecord) for r in results.records):
        return (f"We compared {number(len(systems))} systems ({names_text(systems)}) by pairwise preference votes.",)
    return (f"We compared {number(len(systems))} systems ({names_text(systems)}) on {names_text(labels)}{where}, using "
            f"{unit}.",)


def _preferences(records: Sequence[Record]) -> list[tuple[Part, ...]]:
    """The Bradley-Terry analyses of preference votes: the model, the ties, the fit, the intervals, Rank (UB)."""
    out: list[tuple[Part, ...]] = []
    for r in records:
        if not isinstance(r, PreferenceRecord):
            continue
        ties: tuple[Part, ...] = ((", ties by Davidson's extension", Cite(("davidson1970",)))
                                  if r.ties == "davidson" else (", each tie counted as half a win for either side",))
        unit = "items (each with all its votes)" if r.unit == "items" else "votes"
        out.append(("The systems' strengths are maximum-likelihood estimates of the Bradley-Terry model",
                    Cite(("bradley1952",)), f" from {r.n_votes:,} pairwise preference votes", *ties,
                    "; they were fitted by Newton's method on the aggregated win and tie counts (the maximum the MM "
                    "algorithm", Cite(("hunter2004",)), " converges to), and a strength is a log-ability relative to "
                    "the systems' mean."))
        out.append((f"Their {round(100 * r.ci_level, 2):g}% intervals are bootstrap percentile intervals over "
                    f"{r.n_resamples:,} replicates resampling {unit}, and each system's Rank (UB) is 1 plus the number "
                    "of systems whose interval lies wholly above its own", Cite(("chiang2024",)), "."))
    return out


def _scored_by(results: Results) -> tuple[Part, ...]:
    """sacrebleu's version and each metric's signature, as Post (2018) asks a paper to report them (a native
    source scored by its field's library: ``data.source`` of results.json), so that a reader can reproduce
    the scores with the same options."""
    source = results.data.get("source") or {}
    signatures = source.get("signatures") or {}
    if not source.get("library", "").startswith("sacrebleu") or not signatures:
        return ()
    labels = {k: m.label for k, m in results.metrics.items()}
    listed = "; ".join(f"{labels.get(k, k)} {sig}" for k, sig in signatures.items())
    return (f"{names_text([labels.get(k, k) for k in signatures])} were computed with {source['library']}",
            Cite(("post2018",)), f" from per-sentence statistics (signatures: {listed}).")


def _families(results: Results, records: Sequence[Record]) -> list[tuple[Part, ...]]:
    """One sentence per kind of pairwise family, then the correction, alpha and the intervals."""
    fams = [r for r in records if isinstance(r, PairwiseRecord) and r.kind in ("pairwise", "cv") and r.pairs]
    out: list[tuple[Part, ...]] = []
    tests = results.tests
    for comparisons, alternative in dict.fromkeys((r.comparisons, r.alternative) for r in fams):
        mine = list(dict.fromkeys((r.kind, r.method) for r in fams if (r.comparisons, r.alternative) ==
                                  (comparisons, alternative)))
        baseline = next((p.b for r in fams if r.comparisons == "vs_baseline" for p in r.pairs[:1]), None)
        which = (f"Each system was compared with the baseline {baseline}" if comparisons == "vs_baseline" else
                 "Every pair of systems was compared")
        side = "two-sided" if alternative == "two-sided" else "one-sided"
        s: list[Part] = [f"{which} with"]
        for i, (kind, method) in enumerate(mine):
            d = registry.method(kind, method)
            before, after = d.methods_phrase(side, tests)
            s += [" and" if 0 < i == len(mine) - 1 else "," if i else "", f" {before}", Cite(d.references), after]
        if alternative != "two-sided":
            s.append(f" (alternative: {SIDES.get(alternative, alternative).split('(', 1)[-1].rstrip(')')})")
        s.append(".")
        out.append(tuple(p for p in s if p not in ("", Cite(()))))
    out += _selections(results, [r for r in fams if r.selection is not None])
    corrections = list(dict.fromkeys((r.correction, r.family) for r in fams))
    for correction, family in corrections:
        group = [r for r in fams if (r.correction, r.family) == (correction, family)]
        if correction == "none":
            out.append(("The p-values were not corrected for multiple comparisons.",))
        elif {r.family_size for r in group} == {1}:
            out.append(("Each family held a single comparison, so no correction was needed.",))
        else:
            d = registry.method("correction", correction)
            out.append((f"The p-values were adjusted with {d.display}'s procedure", Cite(d.references),
                        f" over {family_scope(family, group)}.",))
    if fams:
        alpha = fams[0].alpha
        levels = sorted({round(100 * r.ci_level, 1) for r in fams})
        adjusted = "adjusted " if any(r.correction != "none" and r.family_size > 1 for r in fams) else ""
        out.append((f"A difference is called significant when its {adjusted}p-value is at most \u03b1 = {alpha:g}; "
                    f"confidence intervals are at {' and '.join(f'{x:g}%' for x in levels)} and are not adjusted for "
                    "multiplicity.",))
    return out


def family_scope(family: str, group: Sequence[PairwiseRecord]) -> str:
    """What one correction family is, from the records it corrected (``tests.family`` and each record's
    ``family_size``, as sigreport.analyses.common.apply_families forms them): "the six comparisons of each metric
    on each of the two corpora" (one family per record), "one family of 18 comparisons across the three corpora"
    (a family that pools corpora). A record of one score per corpus (``tests.level: corpora``) has no corpus of
    its own: its comparisons are not "on each corpus"."""
    sizes = " or ".join(number(n) for n in sorted({r.family_size for r in group}))
    metrics = {r.metric for r in group}
    corpora = {r.corpus for r in group if r.corpus is not None}
    across = f" across the {number(len(corpora))} corpora" if len(corpora) > 1 else ""
    if family == "all":
        return f"one family of {sizes} comparisons, every comparison of the report"
    if family == "metric":
        return f"one family {'per metric ' if len(metrics) > 1 else ''}of {sizes} comparisons{across}"
    if family == "corpus":
        per = f"per corpus, each of the {number(len(corpora))} corpora, " if len(corpora) > 1 else ""
        return f"one family {per}of {sizes} comparisons (every metric's)"
    of = [w for w, n in (("test", len({(r.kind, r.method) for r in group})), ("metric", len(metrics))) if n > 1]
    return (f"the {sizes} comparisons" + (f" of each {' and '.join(of)}" if of else "")
            + (f" on each of the {number(len(corpora))} corpora" if len(corpora) > 1 else ""))


def clustered(record: Record) -> bool:
    """Whether a pairwise record's items were clustered (``data.columns.cluster``: its pairs carry ``clusters``)."""
    return isinstance(record, PairwiseRecord) and any("clusters" in p.test.extra for p in record.pairs)


def _clusters(records: Sequence[Record]) -> list[tuple[Part, ...]]:
    """With clustered items: G per corpus, and what the clusters changed (every interval, the tests, the MDE)."""
    found = {}
    for r in records:
        if isinstance(r, DescriptivesRecord):
            g = next((s.clusters.G for s in r.systems if s.clusters is not None), None)
            if g is not None:
                found.setdefault(r.corpus, (g, r.n_items))
    if not found:
        return []
    where = "; ".join(f"{number(n)} items in {number(g)} clusters" + (f" on {c}" if c is not None else "")
                      for c, (g, n) in found.items())
    resampled = any(isinstance(r, PairwiseRecord) and r.kind == "pairwise" and r.method in ("bootstrap", "permutation")
                    and clustered(r) for r in records)
    mde = any(p.mde is not None and p.mde.method == "noncentral_t_clustered"
              for r in records if isinstance(r, PairwiseRecord) for p in r.pairs)
    return [(f"The items were clustered ({where}): every system's mean and every paired difference has a "
             "cluster-robust (CR1) standard error", Cite(("liang1986", "cameron2015")), ", with intervals and "
             "tests on Student's t with G \u2212 1 degrees of freedom; the paired t test is its clustered version"
             + (", and the bootstrap and permutation tests resample and sign-flip whole clusters" if resampled else "")
             + "; the design effect (the squared ratio of the cluster-robust to the independent-items standard "
             "error) and the effective number of items n/deff are reported",
             Cite(("miller2024",)), "." + (" The minimum detectable difference of the clustered paired t is the "
             "noncentral t's on G \u2212 1 degrees of freedom, its noncentrality the standardized difference times "
             "\u221a(n/deff)." if mde else ""),)]


def _macro(results: Results, records: Sequence[Record]) -> list[tuple[Part, ...]]:
    """Metrics averaged over strata (``metrics.M.average: macro``): what the average is and how it is tested."""
    found: dict[str, int] = {}
    for r in records:
        if isinstance(r, DescriptivesRecord) and r.metric is not None:
            S = next((s.strata.S for s in r.systems if s.strata is not None), None)
            if S is not None:
                found.setdefault(results.metrics[r.metric].label if r.metric in results.metrics else r.metric, S)
    if not found:
        return []
    what = names_text([f"{label} ({number(S)} strata)" for label, S in found.items()])
    one = len(found) == 1
    resampled = any(isinstance(r, PairwiseRecord) and r.method in ("bootstrap", "permutation")
                    and any("strata" in p.test.extra for p in r.pairs) for r in records)
    return [(f"{what} {'is a macro average' if one else 'are macro averages'}: the mean of the per-stratum means, "
             "every stratum weighing the same, with the standard error of a stratified mean, "
             "sqrt(\u03a3 SE_s\u00b2)/S", Cite(("cochran1977",)), ", and t intervals and tests on the "
             "Welch-Satterthwaite degrees of freedom", Cite(("satterthwaite1946",)),
             "; the bootstrap resamples within strata." if resampled else ".")]


def _selections(results: Results, selected: Sequence[PairwiseRecord]) -> list[tuple[Part, ...]]:
    """How the automatic choice (tests.pairwise auto) chose: from the data for a mean metric, by the metric's
    kind for a corpus-level one (only resampling tests apply; approximate randomization, docs/calibration_corpus.md)."""
    corpus_level = {k for k, m in results.metrics.items() if m.aggregate != "mean"}
    def designed(r: PairwiseRecord) -> bool:
        return clustered(r) or any("strata" in p.test.extra for p in r.pairs)

    per_item = [r for r in selected if r.metric not in corpus_level and not designed(r)]
    out_clustered: list[tuple[Part, ...]] = []
    if any(clustered(r) for r in selected):
        out_clustered.append(("With clustered items the automatic choice was the clustered paired t test (the rank "
                              "tests do not respect clusters).",))
    if any(designed(r) and not clustered(r) for r in selected):
        out_clustered.append(("For a macro average the automatic choice was the paired t test of the macro average "
                              "(the rank tests do not respect the strata).",))
    by_kind = [r for r in selected if r.metric in corpus_level]
    out: list[tuple[Part, ...]] = out_clustered
    if per_item:
        out.append(("The pairwise test was chosen from the data for each metric and corpus: the paired t test when "
                    "there were at least 30 items or every pair's differences passed the Shapiro-Wilk test",
                    Cite(("shapiro1965",)), " at \u03b1, otherwise the Wilcoxon signed-ranks test.",))
    if by_kind:
        labels = list(dict.fromkeys(results.metrics[r.metric].label for r in by_kind))
        chosen = list(dict.fromkeys(r.method for r in by_kind))
        tests = names_text([f"the {test_name('pairwise', m)}" for m in chosen])
        one = len(labels) == 1
        out.append((f"{names_text(labels)} {'is a corpus-level metric' if one else 'are corpus-level metrics'} "
                    "(computed from summed per-item statistics), where only resampling tests apply: the test chosen "
                    f"for {'it' if one else 'them'} was {tests}"
                    + (", with the paired bootstrap's interval of the difference." if chosen == ["permutation"]
                       else "."),))
    return out


def _omnibus(records: Sequence[Record]) -> list[tuple[Part, ...]]:
    out: list[tuple[Part, ...]] = []
    methods_ = {r.method for r in records if r.kind == "omnibus"}
    if "rm_anova" in methods_:
        out.append(("All systems were compared together with a repeated-measures ANOVA; sphericity was tested with "
                    "Mauchly's test", Cite(("mauchly1940",)), ", and when it was rejected at \u03b1 the degrees of "
                    "freedom were corrected with the Huynh-Feldt epsilon", Cite(("huynh1976",)), " if the "
                    "Greenhouse-Geisser epsilon", Cite(("greenhouse1959",)), " exceeded 0.75, and with the "
                    "Greenhouse-Geisser epsilon otherwise.",))
    if "friedman" in methods_:
        out.append(("All systems were compared together with the Friedman test", Cite(("friedman1937",)),
                    " on their average ranks and its Iman-Davenport F", Cite(("iman1980",)), ".",))
    posthoc = [r for r in records if isinstance(r, PosthocRecord)]
    for method, control in dict.fromkeys((r.method, r.control) for r in posthoc):
        against = f" against the control {control}" if control else " for every pair"
        out.append((f"The post-hoc {test_name('posthoc', method, cited=False)}{against} followed, on average ranks",
                    Cite(registry.method("posthoc", method).references), ".",))
    return out


def _proportions(results: Results, records: Sequence[Record]) -> list[tuple[Part, ...]]:
    """The intervals of metrics scored 0 or 1: each system's (the declared proportion interval) and each pair's
    (Newcombe's paired score interval), one sentence per interval method."""
    out: list[tuple[Part, ...]] = []
    desc = [r for r in records if isinstance(r, DescriptivesRecord) and r.ci_method in proportion.NAMES]
    newcombe = {r.metric for r in records if isinstance(r, PairwiseRecord) and
                r.ci_method == proportion.NEWCOMBE_PAIRED}
    for method in dict.fromkeys(r.ci_method for r in desc):
        d = proportion.interval(str(method))
        metrics = list(dict.fromkeys(r.metric for r in desc if r.ci_method == method))
        labels = [results.metrics[m].label if m in results.metrics else m for m in metrics]
        paired = [m for m in metrics if m in newcombe]
        sentence: list[Part] = [f"Every score of {names_text(labels)} is 0 or 1: each system's proportion is given "
                                f"with {d.methods_phrase}", Cite((d.reference,))]
        if any(s.clusters is not None for r in desc if r.ci_method == method for s in r.systems):
            sentence += [", with clustered items on the effective number of items min((n \u2212 1)/deff, n) "
                         "\u00d7 (z/t)\u00b2, t on G \u2212 1 degrees of freedom", Cite(("korn1998",))]
        if paired:
            sentence += [", and each difference of two systems with Newcombe's score interval for paired "
                         "proportions, his method 10", Cite(("newcombe1998",))]
        out.append((*sentence, "."))
    return out


def _answers(results: Results, records: Sequence[Record]) -> list[tuple[Part, ...]]:
    """Several answers per question: averaged within question, the variance split (Miller 2024); pass@k metrics
    (Chen et al. 2021)."""
    out: list[tuple[Part, ...]] = []
    desc = [r for r in records if isinstance(r, DescriptivesRecord) and r.answers]
    if desc:
        most = max(a.answers_max for r in desc for a in r.answers)
        fewest = min(a.answers_min for r in desc for a in r.answers)
        k = number(fewest) if fewest == most else f"{number(fewest)} to {number(most)}"
        out.append((f"Each system answered every question {k} times; the answers were averaged within question "
                    "before inference, and each mean's variance split into its between-question and "
                    "within-question parts", Cite(("miller2024",)), "."))
    passes = [m for m in results.metrics if samples.pass_at_k_of(m) is not None
              and samples.pass_at_k_of(m)[0] in results.metrics]  # type: ignore[index]
    if passes:
        labels = [results.metrics[m].label for m in passes]
        out.append((f"{names_text(labels)} {'is' if len(labels) == 1 else 'are'} the unbiased pass@k estimator per "
                    "question, 1 \u2212 C(n \u2212 c, k)/C(n, k) for n answers of which c are correct",
                    Cite(("chen2021",)), ", analysed over questions like any mean."))
    return out


def _others(records: Sequence[Record], labels: Mapping[str, str]) -> list[tuple[Part, ...]]:
    out: list[tuple[Part, ...]] = []
    kinds = {r.kind for r in records}
    if "mcnemar" in kinds:
        mcnemar, cochran = registry.method("mcnemar", "mcnemar"), registry.method("cochran_q", "cochran_q")
        out.append((f"Classifiers were compared pairwise on per-item correctness with {mcnemar.display}",
                    Cite(mcnemar.references), ("" if "cochran_q" not in kinds else f", after {cochran.display}"),
                    *((Cite(cochran.references),) if "cochran_q" in kinds else ()), ".",))
    for method in dict.fromkeys(r.method for r in records if r.kind == "bayesian"):
        out.append((f"We also report the {test_name('bayesian', method, cited=False)}",
                    Cite(registry.method("bayesian", method).references),
                    " with a region of practical equivalence.",))
    margins = {r.metric: p.equivalence.margin for r in records if isinstance(r, PairwiseRecord) for p in r.pairs
               if p.equivalence is not None}
    if margins:
        from sigreport.results.methods import TOST

        alpha = next(r.alpha for r in records if isinstance(r, PairwiseRecord) and r.metric in margins)
        text = ", ".join(f"\u00b1{d:g} for {labels.get(str(m), str(m))}" for m, d in margins.items())
        out.append((TOST.methods_sentence(alpha, text), Cite(TOST.references), ".",))
    for method in dict.fromkeys(r.method for r in records if r.kind == "replicability"):
        from sigreport.results.methods import combination

        declared_as = combination(str(method))
        out.append((f"Replicability across corpora was assessed with the partial-conjunction procedure "
                    f"({declared_as.display}'s combination of each corpus's one-sided p-values), which estimates on "
                    "how many corpora one system is better than another with the family-wise error held at alpha",
                    Cite(declared_as.references), ".",))
    if "agreement" in kinds:
        measures = dict.fromkeys(r.measure for r in records if isinstance(r, AgreementRecord))
        cited = tuple(dict.fromkeys(k for m in measures for k in registry.method("agreement", m).references))
        out.append(("Annotator agreement is reported as chance-corrected kappa", Cite(cited), ".",))
    return [tuple(p for p in s if p != Cite(())) for s in out]


def _primary(decisions: Decisions | None, corrected: bool = True) -> list[tuple[Part, ...]]:
    """Which test the conclusions follow, and why (the decision model's choice); ``corrected``: whether a
    correction changed a p-value (:func:`corrected`), else the decisions are not called corrected."""
    if decisions is None:
        return []
    chosen = list(dict.fromkeys((b.primary.kind, b.primary.name) for b in decisions if b.primary is not None))
    out: list[tuple[Part, ...]] = []
    for kind, name in chosen:
        if kind == "cv":
            out.append((f"The conclusions follow {the(name)}, the first cross-validation test of the analysis.",))
        elif kind == "posthoc":
            out.append((f"With one score per data set, the conclusions follow {the(name.split(' after ')[0])} after "
                        "the omnibus test, as recommended for comparisons over many data sets", Cite(("demsar2006",)),
                        ".",))
        elif kind == "preferences":
            out.append(("For the preference votes, the conclusions find a system significantly better than another "
                        "when its bootstrap interval of strengths lies wholly above the other's, as Chatbot Arena "
                        "ranks", Cite(("chiang2024",)), ", and group the systems into tiers: no system of a tier is "
                        "significantly better than another of it, and each system below tier 1 is significantly "
                        "worse than one of the tier above.",))
        else:
            out.append((f"The conclusions follow the {'corrected ' if corrected else ''}decisions of {the(name)}, the "
                        "pairwise test of the analysis plan.",))
    return out


def markdown(m: Methods) -> str:
    """methods.md: the paragraph and its references, shown literally (names of systems and metrics come
    from the user: :func:`sigreport.escaping.markdown_text` keeps them from becoming HTML or links)."""
    text = markdown_text(m.plain())
    refs = "\n".join(f"- {markdown_text(r)}" for r in m.references())
    return f"# Methods\n\n{text}\n\n## References\n\n{refs}\n" if refs else f"# Methods\n\n{text}\n"


