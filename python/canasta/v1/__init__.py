"""The canasta.v1 protocol's stubs, generated from proto/canasta/v1/*.proto by grpcio-tools
(``python python/generate_stubs.py`` makes them again): the messages (``*_pb2``) and the
service's client (``service_pb2_grpc.CanastaServiceStub``). Importing them needs the ``client``
extra (grpcio, protobuf)."""
