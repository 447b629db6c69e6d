"""Outputs to score records and summary.json: scoring options, the summary, and the
files of a run directory.
"""
