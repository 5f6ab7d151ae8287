"""Reporting: the HTML and Markdown report and JUnit XML."""
