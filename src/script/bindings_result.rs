//! The methods of the result bindings (`SampleResult`, `sampleResult`, `prev`), named as
//! JMeter's `SampleResult` names them, plus the Groovy property forms scripts use
//! (`prev.responseCode`, `SampleResult.successful = false`).

use std::sync::Arc;

use rhai::{Blob, Dynamic, Engine};

use super::bindings::{read_result, stop_action, text_of, write_result, ResultRef};
use crate::sample::SampleAction;
use crate::sample::SampleResult;

fn text(value: &Dynamic) -> String {
    text_of(value).unwrap_or_default()
}

fn getter<T: Clone + Send + Sync + 'static>(
    engine: &mut Engine,
    names: &[&'static str],
    default: T,
    read: fn(&SampleResult) -> T,
) {
    for name in names {
        let default = default.clone();
        engine.register_fn(*name, move |r: &mut ResultRef| {
            read_result(*r, default.clone(), read)
        });
    }
}

fn property<T: Clone + Send + Sync + 'static>(
    engine: &mut Engine,
    name: &'static str,
    default: T,
    read: fn(&SampleResult) -> T,
) {
    engine.register_get(name, move |r: &mut ResultRef| {
        read_result(*r, default.clone(), read)
    });
}

fn data_as_string(result: &SampleResult) -> String {
    String::from_utf8_lossy(&result.response_data).into_owned()
}

/// Installs the result binding type and its methods.
pub fn register(engine: &mut Engine) {
    engine.register_type_with_name::<ResultRef>("SampleResult");
    register_getters(engine);
    register_setters(engine);
}

fn register_getters(engine: &mut Engine) {
    getter(
        engine,
        &["getResponseDataAsString", "toString"],
        String::new(),
        data_as_string,
    );
    getter(engine, &["getResponseData"], Blob::new(), |r| {
        r.response_data.clone()
    });
    getter(engine, &["getResponseCode"], String::new(), |r| {
        r.response_code.to_string()
    });
    getter(engine, &["getResponseMessage"], String::new(), |r| {
        r.response_message.to_string()
    });
    getter(engine, &["isSuccessful"], false, |r| r.success);
    getter(engine, &["isResponseCodeOK"], false, |r| {
        r.response_code == "200"
    });
    getter(engine, &["getTime"], 0_i64, |r| r.elapsed);
    getter(engine, &["getLatency"], 0_i64, |r| r.latency);
    getter(engine, &["getConnectTime"], 0_i64, |r| r.connect_time);
    getter(engine, &["getStartTime", "getTimeStamp"], 0_i64, |r| {
        r.start_time
    });
    getter(engine, &["getEndTime"], 0_i64, |r| r.end_time);
    getter(engine, &["getIdleTime"], 0_i64, |r| r.idle_time);
    getter(engine, &["getBytes", "getBytesAsLong"], 0_i64, |r| {
        r.bytes()
    });
    getter(engine, &["getSentBytes"], 0_i64, |r| r.sent_bytes);
    getter(engine, &["getSampleCount"], 0_i64, |r| {
        i64::from(r.sample_count)
    });
    getter(engine, &["getErrorCount"], 0_i64, |r| {
        i64::from(r.error_count)
    });
    getter(engine, &["getSampleLabel"], String::new(), |r| {
        r.label.to_string()
    });
    getter(engine, &["getThreadName"], String::new(), |r| {
        r.thread_name.to_string()
    });
    getter(engine, &["getResponseHeaders"], String::new(), |r| {
        r.response_headers.clone()
    });
    getter(engine, &["getRequestHeaders"], String::new(), |r| {
        r.request_headers.clone()
    });
    getter(engine, &["getSamplerData"], String::new(), |r| {
        r.sampler_data.clone()
    });
    getter(engine, &["getContentType"], String::new(), |r| {
        r.content_type.to_string()
    });
    getter(engine, &["getDataType"], String::new(), |r| {
        r.data_type.to_string()
    });
    getter(
        engine,
        &["getDataEncodingWithDefault"],
        String::new(),
        |r| {
            if r.data_encoding.is_empty() {
                "UTF-8".to_string()
            } else {
                r.data_encoding.to_string()
            }
        },
    );
    getter(engine, &["getURL", "getUrlAsString"], Dynamic::UNIT, |r| {
        r.url.clone().map_or(Dynamic::UNIT, Dynamic::from)
    });
    property(
        engine,
        "responseDataAsString",
        String::new(),
        data_as_string,
    );
    property(engine, "responseCode", String::new(), |r| {
        r.response_code.to_string()
    });
    property(engine, "responseMessage", String::new(), |r| {
        r.response_message.to_string()
    });
    property(engine, "successful", false, |r| r.success);
    property(engine, "time", 0_i64, |r| r.elapsed);
    property(engine, "latency", 0_i64, |r| r.latency);
    property(engine, "sampleLabel", String::new(), |r| {
        r.label.to_string()
    });
    property(engine, "responseHeaders", String::new(), |r| {
        r.response_headers.clone()
    });
}

fn setter(engine: &mut Engine, name: &'static str, write: fn(&mut SampleResult, Dynamic)) {
    engine.register_fn(name, move |r: &mut ResultRef, value: Dynamic| {
        write_result(*r, |result| write(result, value))
    });
}

fn set_data(result: &mut SampleResult, value: Dynamic) {
    result.response_data = match value.read_lock::<Blob>() {
        Some(blob) => blob.clone(),
        None => text(&value).into_bytes(),
    };
}

fn register_setters(engine: &mut Engine) {
    setter(engine, "setSuccessful", |r, v| {
        r.set_success(v.as_bool().unwrap_or(false))
    });
    setter(engine, "setResponseCode", |r, v| {
        r.response_code = text(&v).into()
    });
    setter(engine, "setResponseMessage", |r, v| {
        r.response_message = text(&v).into()
    });
    setter(engine, "setResponseData", set_data);
    engine.register_fn(
        "setResponseData",
        |r: &mut ResultRef, value: Dynamic, _encoding: Dynamic| {
            write_result(*r, |result| set_data(result, value))
        },
    );
    setter(engine, "setSampleLabel", |r, v| {
        r.label = Arc::from(text(&v))
    });
    setter(engine, "setSamplerData", |r, v| r.sampler_data = text(&v));
    setter(engine, "setResponseHeaders", |r, v| {
        r.response_headers = text(&v)
    });
    setter(engine, "setRequestHeaders", |r, v| {
        r.request_headers = text(&v)
    });
    setter(engine, "setContentType", |r, v| {
        r.content_type = text(&v).into()
    });
    setter(engine, "setDataEncoding", |r, v| {
        r.data_encoding = text(&v).into()
    });
    setter(engine, "setDataType", |r, v| {
        r.data_type = if text(&v) == "bin" { "bin" } else { "text" }
    });
    setter(engine, "setLatency", |r, v| {
        r.latency = v.as_int().unwrap_or(0)
    });
    engine.register_fn("setResponseCodeOK", |r: &mut ResultRef| {
        write_result(*r, |result| result.response_code = "200".into())
    });
    engine.register_fn("setResponseOK", |r: &mut ResultRef| {
        write_result(*r, |result| {
            result.response_code = "200".into();
            result.response_message = "OK".into();
            result.set_success(true);
        })
    });
    engine.register_fn("setIgnore", |r: &mut ResultRef| {
        write_result(*r, |result| result.ignore = true)
    });
    for (name, action) in [
        ("setStopThread", SampleAction::StopThread),
        ("setStopTest", SampleAction::StopTest),
        ("setStopTestNow", SampleAction::StopTestNow),
        ("setStartNextThreadLoop", SampleAction::StartNextThreadLoop),
    ] {
        engine.register_fn(name, move |r: &mut ResultRef, enabled: bool| {
            stop_action(*r, action, enabled)
        });
    }
    engine.register_set("successful", |r: &mut ResultRef, ok: bool| {
        write_result(*r, |result| result.set_success(ok))
    });
    engine.register_set("responseCode", |r: &mut ResultRef, v: Dynamic| {
        write_result(*r, |result| result.response_code = text(&v).into())
    });
    engine.register_set("responseMessage", |r: &mut ResultRef, v: Dynamic| {
        write_result(*r, |result| result.response_message = text(&v).into())
    });
    engine.register_set("sampleLabel", |r: &mut ResultRef, v: Dynamic| {
        write_result(*r, |result| result.label = Arc::from(text(&v)))
    });
}
