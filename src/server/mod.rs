//! The Pulumi `ResourceProvider` gRPC service.
