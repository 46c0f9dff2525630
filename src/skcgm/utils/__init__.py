"""Utilities: estimator discovery and shared validation helpers."""
