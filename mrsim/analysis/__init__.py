"""What is done with results: validation against real runs, comparisons, sweeps, plots, the HTML report, time series
and output files, and the scheduler checker.
"""
