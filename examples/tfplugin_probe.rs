//! Launches a Terraform provider the way the bridge does and reports what it offers and how
//! long each step took. A development tool: `cargo run --example tfplugin_probe -- <path>`
//! (set `RUST_LOG=tfplugin=debug` to see the provider's own log lines).

use std::time::Instant;

use tfbridge::tfplugin::{LaunchConfig, Support, launch};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let Some(path) = std::env::args_os().nth(1) else {
        anyhow::bail!("usage: tfplugin_probe <path to terraform-provider-NAME>");
    };
    let config = LaunchConfig::terraform_defaults(path);

    let started = Instant::now();
    let client = launch(&config).await?;
    let launched = started.elapsed();
    let schema = client.get_provider_schema().await?;
    let schema_read = started.elapsed() - launched;
    let metadata = client.get_metadata().await?;
    let pid = client.pid();
    let protocol = client.protocol().number();
    let tls = client.uses_tls();
    let before_shutdown = Instant::now();
    client.shutdown().await;
    let shut_down = before_shutdown.elapsed();

    println!("protocol:       {protocol} (TLS: {tls})");
    println!("GetMetadata:    {}", metadata_label(&metadata));
    println!("pid:            {pid:?}");
    println!("resources:      {}", schema.schema.resources.len());
    println!("data sources:   {}", schema.schema.data_sources.len());
    println!("functions:      {}", schema.schema.functions.len());
    println!("capabilities:   {:?}", schema.capabilities);
    println!("launch+connect: {launched:?}");
    println!("schema:         {schema_read:?}");
    println!("shutdown:       {shut_down:?}");
    Ok(())
}

fn metadata_label<T>(metadata: &Support<T>) -> &'static str {
    match metadata {
        Support::Supported(_) => "supported",
        Support::Unsupported => "unsupported (older provider)",
    }
}
