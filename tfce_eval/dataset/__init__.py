"""Function-calling datasets: finding the files, indexing them, categories, both
ground-truth styles, the built-in dataset's location, and `validate`.
"""
