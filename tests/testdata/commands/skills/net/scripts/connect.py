import socket
import sys

try:
    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5) as connection:
        print("CONNECTED " + connection.recv(64).decode().strip())
except OSError as error:
    print("NETFAIL " + repr(error))
    sys.exit(3)
