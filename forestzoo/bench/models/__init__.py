"""Model and suite registrations for ``forestzoo bench``, one module per family.

Every public module here is imported by :func:`forestzoo.bench.registry._load_registrations`
the first time the registry is read; a new family adds a module, nothing else.
"""
