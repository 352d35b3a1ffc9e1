"""YARN schedulers, one module each: FIFO, Capacity and Fair (each names the Hadoop class it follows); ``base``: what
a scheduler sees of an application and the interface it implements; ``registry``: the schedulers by name
(``create_yarn_scheduler``). This ``__init__`` imports nothing, so importing ``base`` never loads a scheduler.
"""
