//! `cargo xtask certs [--out DIR]`: certificates for the HTTP/3 examples,
//! their tests and the interop peers.
//!
//! Writes into DIR (default `examples/certs/`):
//! - `ca.pem`: a self-signed test CA (CA:TRUE, keyCertSign), given to
//!   clients with `--ca`;
//! - `cert.pem`, `key.pem`: the server's leaf certificate and its key:
//!   basicConstraints CA:FALSE (rustls-based peers reject a CA:TRUE
//!   end-entity certificate), subjectAltName DNS:localhost and
//!   IP:127.0.0.1, extendedKeyUsage serverAuth, ECDSA P-256;
//! - `chain.pem`: leaf then CA, for servers that want the chain in one file.
//!
//! Keys are new on every run: the files are test material, never secrets.

use std::fs;
use std::path::Path;
use std::path::PathBuf;

use rcgen::BasicConstraints;
use rcgen::CertificateParams;
use rcgen::DnType;
use rcgen::ExtendedKeyUsagePurpose;
use rcgen::IsCa;
use rcgen::Issuer;
use rcgen::KeyPair;
use rcgen::KeyUsagePurpose;

/// The names the leaf certificate is valid for.
pub const LEAF_NAMES: [&str; 2] = ["localhost", "127.0.0.1"];

pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let out = match args {
        [] => root.join("examples/certs"),
        [flag, dir] if flag == "--out" => PathBuf::from(dir),
        _ => return Err("usage: cargo xtask certs [--out DIR]".into()),
    };
    write(&out)?;
    println!(
        "xtask: wrote ca.pem, cert.pem, key.pem, chain.pem to {}",
        out.display()
    );
    Ok(())
}

/// Generates the CA and the leaf and writes the four files into `dir`.
pub fn write(dir: &Path) -> Result<(), String> {
    let err = |e: rcgen::Error| format!("certificate generation failed: {e}");

    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "quiche-vegas test CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_key = KeyPair::generate().map_err(err)?;
    let ca_cert = ca_params.self_signed(&ca_key).map_err(err)?;
    let issuer = Issuer::new(ca_params, ca_key);

    let names: Vec<String> = LEAF_NAMES.iter().map(|n| n.to_string()).collect();
    // `new` turns "127.0.0.1" into an IP-address SAN.
    let mut leaf_params = CertificateParams::new(names).map_err(err)?;
    leaf_params
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    leaf_params.is_ca = IsCa::ExplicitNoCa;
    leaf_params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf_key = KeyPair::generate().map_err(err)?;
    let leaf_cert = leaf_params.signed_by(&leaf_key, &issuer).map_err(err)?;

    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let files = [
        ("ca.pem", ca_cert.pem()),
        ("cert.pem", leaf_cert.pem()),
        ("key.pem", leaf_key.serialize_pem()),
        ("chain.pem", format!("{}{}", leaf_cert.pem(), ca_cert.pem())),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
