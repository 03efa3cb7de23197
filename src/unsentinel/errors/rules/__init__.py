"""The error-dict rule (UNS501); ordered in :mod:`unsentinel.registry`."""
