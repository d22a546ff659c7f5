//! Mailer Visualizer (`MailerResultCollector` with its `MailerModel`): the settings of
//! the listener that mails a notice when the samples in its scope start failing and
//! when they recover. The element is read here; `results::mailer` counts the samples
//! and sends the mails, and `commands::run` evaluates the settings as the run starts.

use std::sync::Arc;

use crate::expr::Template;
use crate::plan::BuildContext;

/// The nested element that holds the settings.
const MODEL: &str = "MailerResultCollector.mailer_model";

/// The model's properties, in the order of [`MailerSpec::values`].
pub const NAMES: [&str; 11] = [
    "MailerModel.fromAddress",
    "MailerModel.addressie",
    "MailerModel.smtpHost",
    "MailerModel.smtpPort",
    "MailerModel.login",
    "MailerModel.password",
    "MailerModel.authType",
    "MailerModel.failureSubject",
    "MailerModel.successSubject",
    "MailerModel.failureLimit",
    "MailerModel.successLimit",
];

/// A Mailer Visualizer: its listener id (in the scope lists of the samplers it
/// watches) and its settings, as templates evaluated when the run starts.
#[derive(Debug, Clone)]
pub struct MailerSpec {
    pub id: usize,
    pub path: Arc<str>,
    pub values: [Template; 11],
}

/// Reads the element. The limits an element lacks come from `mailer.failurelimit` and
/// `mailer.successlimit` (2 by default), as `MailerModel`'s constructor takes them.
pub fn build(cx: &mut BuildContext<'_>) -> MailerSpec {
    let model = cx.element.prop(MODEL);
    let texts = NAMES.map(|name| {
        let written = model
            .and_then(|m| m.child(name))
            .and_then(|p| p.as_str())
            .map(str::to_string);
        written.unwrap_or_else(|| match name {
            "MailerModel.failureLimit" => property_or_two(cx, "mailer.failurelimit"),
            "MailerModel.successLimit" => property_or_two(cx, "mailer.successlimit"),
            _ => String::new(),
        })
    });
    MailerSpec {
        id: cx.id,
        path: cx.path.clone(),
        values: texts.map(|text| cx.compile(&text)),
    }
}

fn property_or_two(cx: &BuildContext<'_>, name: &str) -> String {
    cx.properties
        .get(name)
        .map_or_else(|| "2".to_string(), |v| v.to_string())
}
