# disruption-clients.sh -> the second client of each planned-disruption step (scripts/e2e.sh sources it): beside
# a step's writer a reader, beside step 5's reader a writer, both at quorum on kept-alive connections through the
# client Service, so that every planned disruption is met by a writer and a reader and each must see 0 failed
# requests. Uses e2e.sh's helpers (start_job, finish_job, run_job, log_has, json, until_true).

start_reader() { # start_reader NAME STOP_KEY: GETs step 3's keys round and round until STOP_KEY exists
  start_job "$1" watch --target "$SERVICE_URL" --prefix s3 --keys @/etc/e2e/step3 --stop-key "$2" --threads 2 \
    --max-seconds 1800 --run "$RUN_ID"
  until_true 120 log_has "$1" '^started'
}
stop_reader() { # stop_reader NAME STOP_KEY -> 0 when the reader read only right values (and read some)
  run_job "$1-stop" 60 put --target "$SERVICE_URL" --key "$2" >/dev/null || true
  finish_job "$1" 120
}

start_writer() { # start_writer NAME PREFIX STOP_KEY: PUTs at 50/s until STOP_KEY exists
  start_job "$1" write --target "$SERVICE_URL" --prefix "$2" --count 1000000 --rate 50 --threads 2 \
    --allow-failures --stop-key "$3" --progress 100 --run "$RUN_ID"
  until_true 120 log_has "$1" '^progress 100'
}
stop_writer() { # stop_writer NAME STOP_KEY -> 0 when every write was acknowledged (and some were written)
  run_job "$1-stop" 60 put --target "$SERVICE_URL" --key "$2" >/dev/null || true
  finish_job "$1" 120 || true
  [ "$(json "$1" "d['written'] > 0 and d['failed'] == 0")" = True ]
}
