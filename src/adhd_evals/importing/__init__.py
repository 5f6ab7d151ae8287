"""The import pipeline: sources are read into one model, then written as a catalog and a check module."""
