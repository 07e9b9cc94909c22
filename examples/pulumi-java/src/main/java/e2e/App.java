// random (a secret password), local (a data source), time (a provider function) and
// sdkv2test (an explicit provider with configuration, a resource updated in place or replaced,
// a data source and the provider's terraformConfig method).
//
// As in the Go example, the provider function comes from time (`rfc3339_parse`, whose result
// is an object): the Java SDK generated for a function whose result is not an object, such as
// local's `direxists`, returns Output<Void> and drops the result. The Java SDK has no
// provider methods either, so terraformConfig is called as its generated method would,
// through Deployment.call with the provider as `__self__`.
package e2e;

import java.util.Map;

import com.pulumi.core.Output;
import com.pulumi.core.TypeShape;
import com.pulumi.deployment.Deployment;
import com.pulumi.resources.CallArgs;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.deployment.InvokeOutputOptions;
import com.pulumi.local.LocalFunctions;
import com.pulumi.local.inputs.GetFileArgs;
import com.pulumi.random.Password;
import com.pulumi.random.PasswordArgs;
import com.pulumi.resources.CustomResourceOptions;
import com.pulumi.sdkv2test.Provider;
import com.pulumi.sdkv2test.ProviderArgs;
import com.pulumi.sdkv2test.Sdkv2testFunctions;
import com.pulumi.sdkv2test.Thing;
import com.pulumi.sdkv2test.ThingArgs;
import com.pulumi.sdkv2test.inputs.GetThingArgs;
import com.pulumi.sdkv2test.inputs.ThingSettingsArgs;
import com.pulumi.time.TimeFunctions;
import com.pulumi.time.inputs.Rfc3339ParseArgs;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    private static void stack(Context ctx) {
        var config = ctx.config();
        var dir = config.require("dir");
        // Changing it updates the thing in place; changing thingName replaces it.
        var description = config.get("description").orElse("first");
        var thingName = config.get("thingName").orElse("alpha");

        var password = new Password("password", PasswordArgs.builder().length(20.0).special(false).build());

        var input = LocalFunctions.getFile(GetFileArgs.builder().filename(dir + "/input.txt").build());
        var parsed = TimeFunctions.rfc3339Parse(Rfc3339ParseArgs.builder().timestamp("2026-01-02T00:00:00Z").build());

        var store = new Provider("store", ProviderArgs.builder().dir(dir + "/store").build());
        var thing = new Thing("thing",
            ThingArgs.builder()
                .name(thingName)
                .description(description)
                .secret("hunter2")
                .tags(Map.of("team", "e2e"))
                .settings(ThingSettingsArgs.builder().level(3.0).build())
                .build(),
            CustomResourceOptions.builder().provider(store).build());
        // By id, which is unknown until the thing exists, so a preview never reads a missing thing.
        var found = Sdkv2testFunctions.getThing(GetThingArgs.builder().name(thing.id()).build(),
            InvokeOutputOptions.builder().provider(store).build());

        ctx.export("passwordResult", password.result());
        ctx.export("inputContent", input.applyValue(r -> r.content()));
        ctx.export("inputSha256", input.applyValue(r -> r.contentSha256()));
        ctx.export("parsedUnix", parsed.applyValue(r -> r.unix()));
        ctx.export("thingId", thing.id());
        ctx.export("thingDescription", thing.description());
        ctx.export("thingFingerprint", thing.fingerprint());
        ctx.export("thingSecret", thing.secret());
        ctx.export("foundDescription", found.applyValue(r -> r.description()));
        // The method's result is an object {result: <the configuration>}.
        Output<Map<String, Object>> storeConfig = Deployment.getInstance().call("pulumi:providers:sdkv2test/terraformConfig",
            TypeShape.<Map<String, Object>>builder(Map.class).addParameter(String.class).addParameter(Object.class).build(),
            CallArgs.Empty, store);
        ctx.export("storeConfig", storeConfig.applyValue(r -> r.get("result")));
    }
}
