//! The installer tests of tests/hermetic/installer/ that need the real random provider built
//! by `scripts/test-tools.sh providers` (a peer-tier test): installed from a loopback registry
//! (`common::registry`), and Parameterize installing it as the engine runs it.

mod parameterize;
mod sources;
