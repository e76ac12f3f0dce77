"""The mobile base's command path: base twist commands in, wheel velocity commands out."""
