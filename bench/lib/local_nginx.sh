# Sourced by the HTTP benchmarks: a local nginx (one worker) on 127.0.0.1 serving a 1 KiB
# file at /1k.bin and a redirect to it at /redirect, configured for many kept-alive
# connections. Needs Debian's nginx-light.
#
# start_local_nginx WORK PORT [HTTP_LINES [SERVER_LINES]]   sets NGINX_PID; the caller
# kills it and removes WORK. HTTP_LINES replace `access_log off;` in the http block;
# SERVER_LINES are added to the server block (extra locations).
start_local_nginx() {
  local work="$1" port="$2" http_lines="${3:-access_log off;}" server_lines="${4:-}"
  mkdir -p "$work/www" "$work/logs"
  head -c 1024 /dev/zero | tr '\0' 'x' > "$work/www/1k.bin"
  # nginx's worker runs as an unprivileged user: let it read the files.
  chmod 755 "$work" "$work/www" && chmod 644 "$work/www/1k.bin"
  cat > "$work/nginx.conf" <<CONF
worker_processes 1;
worker_rlimit_nofile 16384;
daemon off;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 12000; }
http {
  $http_lines
  server_tokens off;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  client_body_temp_path $work/logs;
  proxy_temp_path $work/logs;
  fastcgi_temp_path $work/logs;
  uwsgi_temp_path $work/logs;
  scgi_temp_path $work/logs;
  server {
    listen 127.0.0.1:$port backlog=8192;
    root $work/www;
    location = /redirect { return 302 /1k.bin; }
    $server_lines
  }
}
CONF
  nginx -c "$work/nginx.conf" &
  NGINX_PID=$!
  sleep 1
  kill -0 "$NGINX_PID" 2>/dev/null || { echo "nginx did not start:"; cat "$work/logs/error.log"; exit 1; }
}
