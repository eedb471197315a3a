// SQLite, the system's (Debian: libsqlite3-dev; Apple platforms: in the SDK).
#include <sqlite3.h>
