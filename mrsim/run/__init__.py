"""A run assembled from its :class:`~mrsim.model.runspec.RunSpec`: the layer between the analyses and the API.

* :mod:`mrsim.run.options`: the Hadoop configuration, replay options, scheduler configuration, demands, placement.
* :mod:`mrsim.run.calibration`, :mod:`mrsim.run.yarn_calibration`: which calibration and background a run replays.
* :mod:`mrsim.run.load`: the load what-ifs. :mod:`mrsim.run.scheduler_files`: one configuration file per scheduler.
* :mod:`mrsim.run.execute`: ``replay``, ``compare`` and ``validate`` short of printing (the API and the CLI).
* :mod:`mrsim.run.results`: what they return (``Run``, ``ComparisonRun``, ``ValidationRun``, ``Trace``).
* :mod:`mrsim.run.describe`, :mod:`mrsim.run.progress`, :mod:`mrsim.run.spinner`: cluster lines and progress.

Importing the package imports none of them (the command line's parsers stay light).
"""
