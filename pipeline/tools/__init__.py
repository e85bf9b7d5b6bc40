"""Tools users build on the pipeline: generate, rate, explain, draw, spy, report (library functions;
their command lines live in :mod:`pipeline.cli.commands`)."""
