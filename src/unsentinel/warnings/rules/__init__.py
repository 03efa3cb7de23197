"""The warning rules (UNS0xx detectors, UNS1xx producers, UNS2xx consumers, UNS3xx
annotations, UNS4xx the constant), one per module; ordered in :mod:`unsentinel.registry`."""
