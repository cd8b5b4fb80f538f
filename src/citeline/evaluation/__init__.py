"""Evaluation of answers against QA sets: the format, the form checks and the runner."""

from citeline.evaluation.runner import EVAL_EXCLUDES, EvalSet, discover_suite, run_eval, run_sets

__all__ = ["EVAL_EXCLUDES", "EvalSet", "discover_suite", "run_eval", "run_sets"]
