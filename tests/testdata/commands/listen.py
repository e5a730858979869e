# Test fixture: listens on 127.0.0.1 (a free port, printed on the first line), greets every
# connection with "hello", and exits when its standard input closes or after 60 s.
import socket
import sys
import threading
import time

server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen()
print(server.getsockname()[1], flush=True)


def serve():
    while True:
        connection, _ = server.accept()
        connection.sendall(b"hello\n")
        connection.close()


threading.Thread(target=serve, daemon=True).start()
deadline = time.time() + 60
threading.Thread(target=lambda: (sys.stdin.read(), server.close()), daemon=True).start()
while time.time() < deadline and server.fileno() != -1:
    time.sleep(0.1)
