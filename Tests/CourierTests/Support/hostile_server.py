# Placeholder: the raw-socket hostile server (written next).
