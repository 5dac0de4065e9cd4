"""The built-in scenes: this folder is installed as the package ``mark1.scenes``.

pyproject.toml maps ``mark1.scenes`` onto the top-level ``scenes/`` folder, so the
repository keeps one copy of each scene file and a wheel carries them as package data.
Read them through :func:`mark1.stimuli.shipped_scenes` or by name
(``mark1.load_scene("demo")``, ``mark1 run demo``); ``mark1 scenes`` lists them.
"""
