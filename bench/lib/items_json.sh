# The 10 KiB JSON document the extraction benchmarks read: a token and 145 items of four
# fields (id, name, href, price).
# usage: . bench/lib/items_json.sh; write_items_json FILE
write_items_json() {
  awk 'BEGIN {
    printf "{\"token\":\"abc123\",\"items\":["
    for (i = 0; i < 145; i++) {
      price = sprintf("%.2f", i * 1.25); sub(/0$/, "", price)
      printf "%s{\"id\":%d,\"name\":\"item-%d\",\"href\":\"/items/%d?token=t%d\",\"price\":%s}", (i ? "," : ""), i, i, i, i, price
    }
    printf "]}"
  }' > "$1"
}
