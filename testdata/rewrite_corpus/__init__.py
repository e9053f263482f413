"""Hazardous Gluon blocks for benchmarks/rewrite_corpus.py (a package so blocks can import
project helpers relatively, as the zoos do)."""
