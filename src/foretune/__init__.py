"""foretune: size, tune and audit Foreman/Katello, Satellite and orcharhino servers and Capsules."""

__version__ = "0.1.0"
