# Managed by Puppet
CONTENT_HOST = "https://sat.example.com"
CONTENT_ORIGIN = "https://sat.example.com"
SECRET_KEY = "Zk3pQ8wL1sV7dN0rT5yU9hJ2mC6xB4aE"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "pulpcore",
        "USER": "pulp",
        "PASSWORD": "Hw7tGc2Yq9VbN3kR",
        "HOST": "localhost",
        "PORT": "5432",
    },
}
REDIS_URL = "redis://localhost:6379/8"
CACHE_ENABLED = True
CACHE_SETTINGS = {
    'EXPIRES_TTL': 60,
}
