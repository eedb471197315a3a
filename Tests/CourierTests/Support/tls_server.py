# Placeholder: the raw-socket TLS server (written next).
