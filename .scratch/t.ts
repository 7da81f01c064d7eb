const x: number = 1; console.log("tsx ok", x)
