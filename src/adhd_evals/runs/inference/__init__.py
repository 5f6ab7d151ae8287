"""Statistics the judging and deciding stages share: paired statistics over cases and
prediction-powered inference (the seeded label sample blind draws is PPI's)."""
