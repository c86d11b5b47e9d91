# The lab's Candlepin-like backend: fixed service times on a capped thread pool (Puma's threads stand in
# for Tomcat's maxThreads). candlepin.log lines follow Candlepin's LoggingFilter layout.
require "json"
require "securerandom"

LOG = File.open(ENV.fetch("LAB_CANDLEPIN_LOG"), "a")
LOG.sync = true
SERVICE = Float(ENV.fetch("LAB_BACKEND_MS")) / 1000.0
CREATE = Float(ENV.fetch("LAB_CONSUMER_CREATE_MS")) / 1000.0

class Candlepin
  def call(env)
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    req = SecureRandom.uuid
    method = env["REQUEST_METHOD"]
    path = env["PATH_INFO"]
    sleep(method == "POST" ? CREATE : SERVICE)
    body = if path.end_with?("/status")
             { "mode" => "NORMAL", "result" => true, "version" => "4.4.14", "managerCapabilities" => %w[ssl_verify_status] }
           elsif path.end_with?("/serials")
             [{ "serial" => 1_234_567 }]
           elsif path.end_with?("/compliance")
             { "status" => "disabled", "compliant" => true }
           else
             { "uuid" => path.split("/")[3], "ok" => true }
           end
    elapsed = ((Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000).round
    stamp = Time.now.utc.strftime("%Y-%m-%d %H:%M:%S,%L")
    LOG.write("#{stamp} [thread=#{Thread.current.object_id}] [req=#{req}, org=Lab, csid=] INFO  org.candlepin.common.filter.LoggingFilter - Request: verb=#{method}, uri=#{path}\n" \
              "#{stamp} [thread=#{Thread.current.object_id}] [req=#{req}, org=Lab, csid=] INFO  org.candlepin.common.filter.LoggingFilter - Response: status=200, content-type=\"application/json\", time=#{elapsed}\n")
    [200, { "Content-Type" => "application/json" }, [JSON.generate(body)]]
  end
end

run Candlepin.new
