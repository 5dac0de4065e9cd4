"""The classroom: the lesson page, device response plots, the event log in words."""
