"""Judging an answer: checks run on responses, plugin eval's results read as check rows, the blind
sheet, a model judge and its admission, agreement with a person, and one verdict per criterion."""
