//! The mail samplers of JMeter's `mail` module: SMTP Sampler ([`smtp`]) and Mail Reader
//! Sampler ([`reader`], IMAP and POP3 in [`store`]).
//!
//! Both speak their protocols on a small shared [`connection`] (plain, TLS from the start,
//! or upgraded by STARTTLS; certificates checked against the Mozilla roots unless "trust
//! all certificates" is on), compose or read messages with [`mime`], and report what
//! JMeter reports through JavaMail: its codes, its exception texts and its response
//! layouts. The SMTP message itself is built in [`compose`].

pub mod compose;
pub mod connection;
pub mod mime;
pub mod reader;
pub mod smtp;
pub mod store;
