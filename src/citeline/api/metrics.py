"""Prometheus metrics of one service instance (its own registry, so tests can build many apps)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from citeline.agent.result import AgentResult


class Metrics:
    """The service's Prometheus metrics (requests, durations, runs by exit reason, tokens, cache hits)
    in a registry of their own, so two apps in one process never collide."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("citeline_http_requests", "HTTP requests by route and status.",
                                ["method", "route", "status"], registry=self.registry)
        self.duration = Histogram("citeline_http_request_duration_seconds", "HTTP request durations.",
                                  ["method", "route"], registry=self.registry,
                                  buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120))
        self.runs = Counter("citeline_agent_runs", "Agent runs by exit reason.", ["exit_reason"],
                            registry=self.registry)
        self.tokens = Counter("citeline_tokens", "Model tokens by kind.", ["kind"], registry=self.registry)
        self.cache_hits = Counter("citeline_cache_hits", "Cache hits by cache.", ["cache"],
                                  registry=self.registry)
        self.runs_in_flight = Gauge("citeline_agent_runs_in_flight", "Agent runs executing now.",
                                    registry=self.registry)

    def record_run(self, result: AgentResult) -> None:
        """Count a finished run: its exit reason, its tokens, and whether the answer came from cache."""
        self.runs.labels(result.exit_reason.value).inc()
        self.tokens.labels("prompt").inc(result.usage.prompt_tokens)
        self.tokens.labels("completion").inc(result.usage.completion_tokens)
        if result.cached:
            self.cache_hits.labels("answer").inc()

    def render(self) -> bytes:
        """The metrics in Prometheus's text format, for `/metrics`."""
        return generate_latest(self.registry)
