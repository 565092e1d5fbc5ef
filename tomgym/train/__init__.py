"""Training adapters: dataset export, the OpenRLHF reward/agent modules, TRL and veRL hooks."""
