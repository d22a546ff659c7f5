//! The compatibility registry: every JMeter element class jmxr knows, and what it does with it.
