"""The world simulator: events, nested beliefs, Hi-ToM and ToMi generators, parsers and solvers."""
