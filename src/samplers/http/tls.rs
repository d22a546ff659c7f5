//! HTTPS with rustls (ring provider), and the stream type connections use.
//!
//! JMeter trusts every server certificate by default (its `TrustAllSSLSocketFactory`),
//! so jmxr does too: load tests often target staging hosts with self-signed
//! certificates. Signatures in the handshake are still verified, so the connection is
//! encrypted to whoever holds the key. Set the JMeter property
//! `jmxr.https.verify_certificates=true` to check certificates against the Mozilla
//! root store (webpki-roots) and the host name; a failure is then a failed sample with
//! `javax.net.ssl.SSLHandshakeException`.
//!
//! ALPN offers `http/1.1` alone, or `h2` then `http/1.1` when the sampler wants HTTP/2
//! ([`handshake_offering_h2`]); the server's choice decides which client speaks next.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, SignatureScheme};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

/// The property that turns certificate checking on.
pub const VERIFY_PROPERTY: &str = "jmxr.https.verify_certificates";

/// A connection's byte stream: plain TCP or TLS over TCP.
pub enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

/// Runs the TLS handshake on `tcp` for `host`, offering HTTP/1.1 only.
pub async fn handshake(tcp: TcpStream, host: &str, verify: bool) -> io::Result<Stream> {
    handshake_with(tcp, host, shared_config(verify, false)).await
}

/// Runs the TLS handshake on `tcp` for `host` with `config` (one of
/// [`shared_config`], or one presenting a client certificate).
pub async fn handshake_with(
    tcp: TcpStream,
    host: &str,
    config: Arc<ClientConfig>,
) -> io::Result<Stream> {
    let tls = connect(tcp, host, config).await?;
    Ok(Stream::Tls(Box::new(tls)))
}

/// Runs the TLS handshake on `tcp` for `host` with `config`, which offers `h2` before
/// `http/1.1`; also says whether the server chose `h2`.
pub async fn handshake_offering_h2(
    tcp: TcpStream,
    host: &str,
    config: Arc<ClientConfig>,
) -> io::Result<(Stream, bool)> {
    let tls = connect(tcp, host, config).await?;
    let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
    Ok((Stream::Tls(Box::new(tls)), h2))
}

async fn connect(
    tcp: TcpStream,
    host: &str,
    config: Arc<ClientConfig>,
) -> io::Result<TlsStream<TcpStream>> {
    let name = ServerName::try_from(host.to_string())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    TlsConnector::from(config).connect(name, tcp).await
}

/// JSSE's message for a TLS alert the server sent (`Received fatal alert:
/// certificate_required`), when `err` carries one: Java names alerts as the RFCs do.
pub fn received_alert(err: &io::Error) -> Option<String> {
    let alert = match err.get_ref()?.downcast_ref::<rustls::Error>()? {
        rustls::Error::AlertReceived(alert) => alert,
        _ => return None,
    };
    let mut name = String::new();
    for c in format!("{alert:?}").chars() {
        if c.is_ascii_uppercase() && !name.is_empty() {
            name.push('_');
        }
        name.push(c.to_ascii_lowercase());
    }
    Some(format!("Received fatal alert: {name}"))
}

/// The trust-all client configuration without ALPN, for other protocols over TLS
/// (MQTT's `SSL` transport trusts every certificate, as the xmeter plugin does).
pub fn trust_all_config() -> Arc<ClientConfig> {
    static CONFIG: OnceLock<Arc<ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut config = build_config(false, false);
            config.alpn_protocols.clear();
            Arc::new(config)
        })
        .clone()
}

/// The checking client configuration without ALPN (webpki roots and the host name), for
/// protocols whose JMeter sampler trusts only the JVM's certificate authorities (LDAPS
/// without "trust all").
pub fn verifying_config() -> Arc<ClientConfig> {
    static CONFIG: OnceLock<Arc<ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut config = build_config(true, false);
            config.alpn_protocols.clear();
            Arc::new(config)
        })
        .clone()
}

/// Runs the TLS handshake on `tcp` for `host` offering only `h2` in ALPN, for gRPC,
/// which speaks nothing else. `verify` checks the certificate against the webpki roots
/// and the host name; otherwise every certificate is accepted.
pub async fn handshake_h2_only(tcp: TcpStream, host: &str, verify: bool) -> io::Result<Stream> {
    static CONFIGS: [OnceLock<Arc<ClientConfig>>; 2] = [const { OnceLock::new() }; 2];
    let config = CONFIGS[usize::from(verify)]
        .get_or_init(|| {
            let mut config = build_config(verify, true);
            config.alpn_protocols = vec![b"h2".to_vec()];
            Arc::new(config)
        })
        .clone();
    let tls = connect(tcp, host, config).await?;
    Ok(Stream::Tls(Box::new(tls)))
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// One client configuration per mode for the whole process (session resumption data
/// lives in it, shared as JMeter shares its SSL context unless told otherwise); none
/// presents a client certificate.
pub fn shared_config(verify: bool, offer_h2: bool) -> Arc<ClientConfig> {
    static CONFIGS: [OnceLock<Arc<ClientConfig>>; 4] = [const { OnceLock::new() }; 4];
    let cell = &CONFIGS[usize::from(verify) * 2 + usize::from(offer_h2)];
    cell.get_or_init(|| Arc::new(build_config(verify, offer_h2)))
        .clone()
}

fn build_config(verify: bool, offer_h2: bool) -> ClientConfig {
    build_config_with(verify, offer_h2, None).expect("no client certificate to refuse")
}

/// A client configuration that presents `chain` and `key` when the server asks for a
/// certificate (the client keystore's entry, `keystore`); fails when the key is not one
/// rustls can sign with.
pub fn config_presenting(
    verify: bool,
    offer_h2: bool,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<ClientConfig, rustls::Error> {
    build_config_with(verify, offer_h2, Some((chain, key)))
}

fn build_config_with(
    verify: bool,
    offer_h2: bool,
    client_cert: Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>,
) -> Result<ClientConfig, rustls::Error> {
    let provider = provider();
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .expect("the ring provider supports TLS 1.2 and 1.3");
    let builder = if verify {
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        builder.with_root_certificates(roots)
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(TrustAll(provider)))
    };
    let mut config = match client_cert {
        Some((chain, key)) => builder.with_client_auth_cert(chain, key)?,
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = if offer_h2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    Ok(config)
}

/// Accepts any certificate, as JMeter does by default; handshake signatures are checked.
#[derive(Debug)]
struct TrustAll(Arc<CryptoProvider>);

impl ServerCertVerifier for TrustAll {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
