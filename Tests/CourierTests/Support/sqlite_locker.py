"""Holds SQLite files locked, as another process using them would: for each path given, opens it
and begins an exclusive transaction (in rollback-journal mode it then blocks readers and writers
alike), then prints the launcher's handshake line (`PORT 1`: there is no port) and keeps the
locks until its stdin reaches EOF (PythonServerProcess.stop())."""
import sqlite3
import sys

connections = []
for path in sys.argv[1:]:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("BEGIN EXCLUSIVE")
    connection.execute("CREATE TABLE IF NOT EXISTS held (x)")
    connections.append(connection)
print("PORT 1", flush=True)
sys.stdin.read()
for connection in connections:
    connection.rollback()
    connection.close()
